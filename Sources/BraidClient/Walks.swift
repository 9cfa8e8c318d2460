/// The pages of a query, each requested when the loop asks for it (see ``BraidClient/walk(_:perPage:ranking:session:)``).
/// Iterating again starts again at page 1.
public struct SearchWalk: AsyncSequence, Sendable {
    public typealias Element = SearchPage
    public typealias Failure = BraidClientError

    let client: BraidClient
    let query: String
    let perPage: Int?
    let ranking: String?
    let session: String?

    public func makeAsyncIterator() -> Iterator { Iterator(walk: self) }

    public struct Iterator: AsyncIteratorProtocol {
        let walk: SearchWalk
        /// nil before page 1; `.some(nil)` after the last page.
        var cursor: String??

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(BraidClientError) -> SearchPage? {
            if case .some(.none) = cursor { return nil }
            let page = try await walk.client.search(
                walk.query, perPage: cursor == nil ? walk.perPage : nil, cursor: cursor ?? nil, ranking: walk.ranking, session: walk.session)
            cursor = .some(page.nextCursor)
            return page
        }

        public mutating func next() async throws(BraidClientError) -> SearchPage? { try await next(isolation: nil) }
    }
}

/// The pages of one feed component (see ``BraidClient/pages(of:in:user:query:)``).
public struct ComponentWalk: AsyncSequence, Sendable {
    public typealias Element = ComponentContent
    public typealias Failure = BraidClientError

    let client: BraidClient
    let feed: String
    let component: String
    let user: String?
    let query: String?

    public func makeAsyncIterator() -> Iterator { Iterator(walk: self) }

    public struct Iterator: AsyncIteratorProtocol {
        let walk: ComponentWalk
        var cursor: String??

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(BraidClientError) -> ComponentContent? {
            if case .some(.none) = cursor { return nil }
            let answer = try await walk.client.component(walk.component, of: walk.feed, user: walk.user, cursor: cursor ?? nil, query: walk.query)
            guard case .content(let content, _) = answer, let ready = content.ready else {
                throw BraidClientError(status: 200, code: "pending", message: "\(walk.component) is not available yet; ask again later")
            }
            cursor = .some(ready.nextCursor)
            return content
        }

        public mutating func next() async throws(BraidClientError) -> ComponentContent? { try await next(isolation: nil) }
    }
}
