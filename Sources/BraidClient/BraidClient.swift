import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

/// A client of the Braid gateway for apps: search walks that follow cursors, feeds loaded
/// layout first and contents in one batch, and event reporting (``EventReporter``). The
/// operations are generated from `Schemas/openapi.yaml`; ``api`` gives the generated client for
/// the rest.
public struct BraidClient: Sendable {
    /// The generated client of every operation in `Schemas/openapi.yaml`. Its errors are
    /// ``BraidClientError``s wrapped in `ClientError`; the methods of ``BraidClient`` unwrap them.
    public let api: Client

    /// - Parameters:
    ///   - serverURL: the gateway, e.g. `https://braid.example.com`.
    ///   - transport: how requests go out; URLSession by default (Apple platforms and Linux).
    ///   - credentials: the signed-in user's token (`identity.mode: jwt`); nil sends none.
    ///   - middlewares: more middlewares, run after the credential (closest to the transport).
    public init(
        serverURL: URL, transport: any ClientTransport = URLSessionTransport(), credentials: (any CredentialProvider)? = nil,
        middlewares: [any ClientMiddleware] = []
    ) {
        var chain: [any ClientMiddleware] = [ResponseErrorMiddleware(), ConditionalRequestMiddleware()]
        if let credentials { chain.append(CredentialMiddleware(provider: credentials)) }
        api = Client(
            serverURL: serverURL, configuration: Configuration(dateTranscoder: ISO8601Dates()), transport: transport,
            middlewares: chain + middlewares)
    }

    // MARK: Search

    /// One page: the first of a query (`page` 1 by default), or the page `cursor` leads to.
    /// - Parameter session: the app's session id. It keeps a session in its experiment arm and
    ///   its team draft; send the same one for every page of a session.
    public func search(
        _ query: String, perPage: Int? = nil, page: Int? = nil, cursor: String? = nil, ranking: String? = nil, session: String? = nil
    ) async throws(BraidClientError) -> SearchPage {
        let input = Operations.Search.Input.Query(q: query, perPage: perPage, page: page, cursor: cursor, ranking: ranking, session: session)
        let output = try await call { try await api.search(query: input) }
        guard case .ok(let ok) = output else { throw Self.undocumented(output) }
        return try Self.body { try ok.body.json }
    }

    /// The pages of a query, page 1 first, each next one by the previous page's `next_cursor`,
    /// until the last page. The cursor carries the walk, so the pages never repeat or skip a
    /// document, whatever the live index does meanwhile (see each page's `walk`).
    public func walk(_ query: String, perPage: Int? = nil, ranking: String? = nil, session: String? = nil) -> SearchWalk {
        SearchWalk(client: self, query: query, perPage: perPage, ranking: ranking, session: session)
    }

    // MARK: Feeds

    /// Stage 1 of a feed: its layout for `user` (nil: the user of the credential).
    public func feedLayout(_ feed: String, user: String? = nil) async throws(BraidClientError) -> FeedLayout {
        let output = try await call { try await api.feedLayout(path: .init(feed: feed), query: .init(user: user)) }
        guard case .ok(let ok) = output else { throw Self.undocumented(output) }
        return try Self.body { try ok.body.json }
    }

    /// Several components in one request (at most 20); a slow or missing one comes back
    /// pending. One entry per name, in order.
    public func components(
        _ names: [String], of feed: String, user: String? = nil, timeout: Duration? = nil
    ) async throws(BraidClientError) -> [ComponentContent] {
        // The gateway takes whole milliseconds, at least 1.
        let milliseconds = timeout.map { max(1, Int($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000)) }
        let request = Operations.ComponentsBatchGet.Input.Body.JsonPayload(user: user, components: names, timeoutMs: milliseconds)
        let output = try await call { try await api.componentsBatchGet(path: .init(feed: feed), body: .json(request)) }
        guard case .ok(let ok) = output else { throw Self.undocumented(output) }
        return try Self.body { try ok.body.json.components }
    }

    /// One page of one component: its first page, or the page `cursor` leads to; `query` searches
    /// inside a profile tab. With `etag` (the ETag of an earlier ``ComponentPage/content(_:etag:)``) an
    /// unchanged page comes back as ``ComponentPage/notModified`` without its body.
    public func component(
        _ component: String, of feed: String, user: String? = nil, cursor: String? = nil, query: String? = nil, etag: String? = nil
    ) async throws(BraidClientError) -> ComponentPage {
        let output = try await call {
            try await ConditionalRequestMiddleware.$etag.withValue(etag) {
                try await api.componentContent(path: .init(feed: feed, component: component), query: .init(user: user, cursor: cursor, q: query))
            }
        }
        switch output {
        case .ok(let ok): return .content(try Self.body { try ok.body.json }, etag: ok.headers.eTag)
        case .notModified(let notModified): return .notModified(impressionID: notModified.headers.braidImpressionId)
        default: throw Self.undocumented(output)
        }
    }

    /// The pages of one component (a list, or a profile tab with or without `query`), following
    /// `next_cursor` until the last page. A pending page ends the walk with an error
    /// (`pending`): ask again later.
    public func pages(of component: String, in feed: String, user: String? = nil, query: String? = nil) -> ComponentWalk {
        ComponentWalk(client: self, feed: feed, component: component, user: user, query: query)
    }

    /// A feed as an app draws it: the layout, then the contents of every component the layout
    /// says to prefetch, in one batch per 20, all batches at once. What the gateway could not
    /// produce in time is ``Feed/Slot/State-swift.enum/pending``: draw its skeleton and call
    /// ``refresh(_:components:user:)`` later.
    public func feed(_ feed: String, user: String? = nil, timeout: Duration? = nil) async throws(BraidClientError) -> Feed {
        var loaded = Feed(layout: try await feedLayout(feed, user: user))
        try await load(&loaded, components: loaded.slots.filter(\.layout.prefetch).map(\.id), user: user, timeout: timeout)
        return loaded
    }

    /// Loads `components` of `feed` (components the layout did not prefetch, when they come
    /// into view) in batches of 20.
    public func load(_ feed: inout Feed, components: [String], user: String? = nil, timeout: Duration? = nil) async throws(BraidClientError) {
        let name = feed.layout.feed
        let batches = stride(from: 0, to: components.count, by: Self.maxBatch).map { Array(components[$0..<min($0 + Self.maxBatch, components.count)]) }
        let results = try await concurrently(batches) { batch throws(BraidClientError) in
            try await self.components(batch, of: name, user: user, timeout: timeout)
        }
        for contents in results { for content in contents { feed.update(with: content) } }
    }

    /// Asks again for `components` (by default the pending ones), one request each, all at once,
    /// revalidating with each one's ETag: an unchanged component costs a 304 and keeps its content.
    public func refresh(_ feed: inout Feed, components: [String]? = nil, user: String? = nil) async throws(BraidClientError) {
        let name = feed.layout.feed
        let wanted = (components ?? feed.pending).compactMap { id in feed[id].map { (id, $0.etag) } }
        let answers = try await concurrently(wanted) { wanted throws(BraidClientError) in
            (wanted.0, try await self.component(wanted.0, of: name, user: user, etag: wanted.1))
        }
        for (id, answer) in answers {
            switch answer {
            case .content(let content, let etag): feed.update(with: content, etag: etag, for: id)
            case .notModified(let impressionID): feed.revalidated(id, impressionID: impressionID)
            }
        }
    }

    // MARK: Events

    /// Sends events now (at most 100), in one request. Apps report through an
    /// ``EventReporter``, which batches and retries; this is what it calls.
    public func send(_ events: [BraidEvent]) async throws(BraidClientError) {
        let payload = events.map { event in
            switch event {
            case .impression(let id): Components.Schemas.Event(_type: .impression, impressionId: id)
            case .click(let id, let position): Components.Schemas.Event(_type: .click, impressionId: id, position: position)
            }
        }
        let output = try await call { try await api.postEvents(body: .json(.init(events: payload))) }
        guard case .accepted = output else { throw Self.undocumented(output) }
    }

    // MARK: Plumbing

    static let maxBatch = 20

    /// Runs a generated operation, unwrapping the ``BraidClientError`` that
    /// ``ResponseErrorMiddleware`` threw from the generated client's `ClientError`.
    private func call<Output>(_ operation: () async throws -> Output) async throws(BraidClientError) -> Output {
        do {
            return try await operation()
        } catch let error as ClientError {
            if let braid = error.underlyingError as? BraidClientError { throw braid }
            if error.response != nil { throw .unexpected(status: error.response?.status.code ?? 0, "\(error.underlyingError)") }
            throw .transport(error.underlyingError)
        } catch {
            throw .transport(error)
        }
    }

    /// A documented output the method does not expect can only be a 2xx or 304 that
    /// ``ResponseErrorMiddleware`` let through.
    private static func undocumented(_ output: Any) -> BraidClientError {
        .unexpected(status: 0, "an answer the contract does not give here: \(output)")
    }

    private static func body<T>(_ read: () throws -> T) throws(BraidClientError) -> T {
        do { return try read() } catch { throw .unexpected(status: 200, "\(error)") }
    }

    /// Runs `work` on every element at once; the results in `elements`' order.
    private func concurrently<Element: Sendable, Result: Sendable>(
        _ elements: [Element], _ work: @escaping @Sendable (Element) async throws(BraidClientError) -> Result
    ) async throws(BraidClientError) -> [Result] {
        do {
            return try await withThrowingTaskGroup(of: (Int, Result).self) { group in
                for (index, element) in elements.enumerated() { group.addTask { (index, try await work(element)) } }
                var results = [Result?](repeating: nil, count: elements.count)
                for try await (index, result) in group { results[index] = result }
                return results.map { $0! }
            }
        } catch let error as BraidClientError {
            throw error
        } catch {
            throw .transport(error)
        }
    }
}

/// Dates as the gateway writes them (RFC 3339, with or without fractional seconds).
struct ISO8601Dates: DateTranscoder {
    func encode(_ date: Date) throws -> String { date.formatted(.iso8601) }

    func decode(_ string: String) throws -> Date {
        if let date = try? Date(string, strategy: .iso8601) { return date }
        return try Date(string, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
