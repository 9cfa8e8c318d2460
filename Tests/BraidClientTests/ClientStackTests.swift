import BraidClient
import BraidHarness
import BraidTestSupport
import Foundation
import Synchronization
import Testing

/// The client against a real `braid gateway` and `braid worker` (and the integration tier's
/// redis-server and broker), over HTTP through URLSession: what an app does, end to end.
@Suite("BraidClient on the local stack", .serialized, .integration)
struct ClientStackTests {
    /// A gateway whose every session is in one team-draft experiment, and a client of it.
    static func start(_ fixture: WorkerFixture, experiment: String, environment: [String: String] = [:]) async throws -> BraidService {
        let file = fixture.logFolder.appendingPathComponent("\(fixture.keyPrefix)-client.yaml")
        try "interleaving:\n  arms:\n    - {name: \(experiment), weight: 100, mode: team_draft}\n".write(to: file, atomically: true, encoding: .utf8)
        return try await fixture.startGateway(arguments: ["--config", file.path], environment: environment)
    }

    static func client(_ gateway: BraidService, credentials: (any CredentialProvider)? = nil) throws -> BraidClient {
        BraidClient(serverURL: try #require(URL(string: gateway.baseURL)), credentials: credentials)
    }

    @Test("A walk follows next_cursor to the last page: every document once, positions in order, the session kept")
    func walkFollowsCursors() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        let gateway = try await Self.start(fixture, experiment: "walk-exp")
        defer { gateway.process.signal(SIGTERM) }
        let client = try Self.client(gateway)

        var pages: [SearchPage] = []
        for try await page in client.walk("curry", perPage: 7, session: "walker-1") { pages.append(page) }
        let items = pages.flatMap(\.items)
        #expect(pages.count > 2, "a walk of several pages: \(pages.count)")
        #expect(pages.last?.nextCursor == nil && pages.dropLast().allSatisfy { $0.nextCursor != nil })
        #expect(Set(items.map(\.id)).count == items.count, "a document shown twice in one walk")
        #expect(items.map(\.position) == Array(0..<items.count), "positions are global and contiguous")
        #expect(pages.allSatisfy { $0.walk == .exact }, "\(pages.map(\.walk))")
        #expect(items.count == pages.first?.total, "the walk ends where the list ends")
        // The session stays in its arm on every page: each page is a team-draft page with its own id.
        #expect(pages.allSatisfy { $0.interleaving.mode == .teamDraft && $0.impressionId != nil })
        #expect(Set(pages.compactMap(\.impressionId)).count == pages.count)

        // Bad input is the gateway's 400, with its code.
        await #expect(throws: BraidClientError.self) { _ = try await client.search("curry", perPage: 500) }
        do {
            _ = try await client.search("curry", cursor: "not-a-cursor")
            Issue.record("a forged cursor was accepted")
        } catch {
            #expect(error.status == 400 && error.code != "transport", "\(error)")
        }
    }

    @Test("A feed loads layout first, then its components in one batch; refresh revalidates with the ETag; tabs page on their own")
    func feedsAndTabs() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 10)
        let gateway = try await Self.start(fixture, experiment: "feed-exp")
        defer { gateway.process.signal(SIGTERM) }
        let client = try Self.client(gateway)

        var home = try await client.feed("home", user: "u00003")
        #expect(home.layout.user == "u00003" && home.slots.count == home.layout.components.count && !home.slots.isEmpty)
        // Whatever was slow comes back pending; asking again gets it.
        for _ in 0..<20 where !home.pending.isEmpty {
            try await client.refresh(&home, user: "u00003")
        }
        #expect(home.pending.isEmpty, "still pending: \(home.pending)")
        let prefetched = home.slots.filter(\.layout.prefetch)
        #expect(!prefetched.isEmpty)
        for slot in prefetched {
            guard case .ready(let content) = slot.state else {
                Issue.record("\(slot.id) is not ready: \(slot.state)")
                continue
            }
            #expect(content.component == slot.id)
        }

        // What the layout did not prefetch loads when asked for (as it comes into view).
        #expect(home.slots.contains { if case .notLoaded = $0.state { true } else { false } }, "the demo home defers some components")
        try await client.load(&home, components: home.slots.filter { !$0.layout.prefetch }.map(\.id), user: "u00003")
        for _ in 0..<20 where !home.pending.isEmpty {
            try await client.refresh(&home, user: "u00003")
        }
        #expect(home.slots.allSatisfy { if case .ready = $0.state { true } else { false } }, "\(home.slots.map(\.state))")

        // A list component's ETag is its state hash: asking again with it costs a 304 and keeps the content.
        let list = try #require(home.slots.first { $0.layout.layout.sizing == .content }, "the demo home has list components")
        let etag = try #require(list.etag, "a list component from a batch carries its ETag")
        let again = try await client.component(list.id, of: "home", user: "u00003", etag: etag)
        guard case .notModified = again else {
            Issue.record("an unchanged component was sent again (sent \(etag)): \(String(describing: again).prefix(300))")
            return
        }
        try await client.refresh(&home, components: [list.id], user: "u00003")
        guard case .ready(let kept) = try #require(home[list.id]).state, case .ready(let before) = list.state else {
            Issue.record("refresh lost the content")
            return
        }
        #expect(kept == before)

        // A profile (u00000 wrote recipes of the seeded corpus): the tab group, then a tab paged to its end.
        let profile = try await client.feed("profile", user: "u00000")
        let tabs = try #require(profile.layout.components.first(where: { $0.layout.style == .tabs })?.tabs, "the profile layout has tabs")
        let recipesTab = try #require(tabs.first(where: { $0._type == .profileRecipes }))
        var recipeIDs: [String] = []
        var tabPages = 0
        for try await page in client.pages(of: recipesTab.id, in: "profile", user: "u00000") {
            guard case .RecipeListContent(let list) = page else {
                Issue.record("the recipes tab gave \(page)")
                break
            }
            recipeIDs += (list.value2.items ?? []).map(\.id)
            tabPages += 1
        }
        #expect(tabPages > 1 && Set(recipeIDs).count == recipeIDs.count, "\(tabPages) pages: \(recipeIDs)")
        let tabGroup = try #require(profile.layout.components.first(where: { $0.layout.style == .tabs })?.id)
        guard case .ready(let tabCounts) = try #require(profile[tabGroup]).state, case .ProfileTabsContent(let counts) = tabCounts
        else {
            Issue.record("the tab group was not loaded")
            return
        }
        #expect(counts.value2.items?.first { $0.id == .profileRecipes }?.count == recipeIDs.count, "the tab's count is its pages' length")
    }

    @Test("Events reported through the reporter are credited: B's clicks win, a refused event is dropped and counted, the rest sent")
    func reportedEventsMoveTheCredit() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        let worker = try await fixture.startWorker("client-worker")
        defer { worker.signal(SIGTERM) }
        let gateway = try await Self.start(fixture, experiment: "client-exp")
        defer { gateway.process.signal(SIGTERM) }
        let client = try Self.client(gateway)
        var configuration = EventReporter.Configuration()
        configuration.flushInterval = .milliseconds(100)
        let reporter = EventReporter(client: client, configuration: configuration)
        let running = Task { await reporter.run() }
        defer { running.cancel() }

        // Three sessions, each clicking one B document of its first page; one click on a
        // position its page never showed, which the gateway refuses.
        var bogus: BraidEvent?
        for session in ["s1", "s2", "s3"] {
            let page = try await client.search("curry", perPage: 10, session: session)
            let impression = try #require(page.impression, "a team-draft page carries an impression id")
            reporter.report(impression)
            let b = try #require(page.items.first(where: { $0.team == .b }))
            reporter.report(try #require(page.click(b)))
            bogus = .click(impressionID: impression.impressionID, position: 10_000)
        }
        reporter.report(try #require(bogus))
        await reporter.flush()
        let statistics = reporter.statistics
        #expect(statistics.sent == 6 && statistics.refused == 1 && statistics.dropped == 0 && statistics.held == 0, "\(statistics)")
        #expect(statistics.lastRefusal?.code == "invalid_event", "\(String(describing: statistics.lastRefusal))")

        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let output = try await client.api.experiment(path: .init(id: "client-exp"))
            let outcome = try output.ok.body.json
            // Impressions and clicks are credited as the worker reads them: wait for all three clicks.
            if outcome.winsB == 3 {
                #expect(outcome.impressions == 3 && outcome.winsA == 0 && outcome.ties == 0, "\(outcome)")
                break
            }
            try #require(ContinuousClock.now < deadline, "the worker did not credit the reported events: \(outcome)")
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    @Test("An interleaved feed component's events are credited to the experiment and to the component; a 304 brings a new impression id")
    func feedComponentEvents() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        let worker = try await fixture.startWorker("client-feed-worker")
        defer { worker.signal(SIGTERM) }
        let gateway = try await Self.start(fixture, experiment: "client-feed-exp")
        defer { gateway.process.signal(SIGTERM) }
        let client = try Self.client(gateway)
        let reporter = EventRecorder()

        var home = try await client.feed("home", user: "u00002")
        // The list's cached ranking is materialized by the worker after the first miss; until
        // then its page is live, with no impression id.
        let deadline = ContinuousClock.now + .seconds(60)
        while home["more"]?.impressionID == nil {
            try #require(ContinuousClock.now < deadline, "the interleaved list never carried an impression id: \(String(describing: home["more"]?.state))")
            try await Task.sleep(for: .milliseconds(250))
            try await client.load(&home, components: ["more"], user: "u00002")
        }
        let slot = try #require(home["more"])
        guard case .ready(let content) = slot.state, case .InterleavedListContent(let list) = content else {
            Issue.record("the list is not an interleaved list: \(slot.state)")
            return
        }
        #expect(content.impressionID == slot.impressionID)
        let b = try #require(list.value2.items?.first { $0.team == .b }, "no B item: \(list)")
        reporter.report(try #require(slot.impression))
        reporter.report(try #require(slot.click(b)))

        // Asking again with the ETag costs a 304, which carries an impression id of its own.
        let etag = try #require(slot.etag)
        guard case .notModified(let fresh?) = try await client.component("more", of: "home", user: "u00002", etag: etag) else {
            Issue.record("the unchanged list was not a 304 with an impression id")
            return
        }
        #expect(fresh != slot.impressionID)
        try await client.refresh(&home, components: ["more"], user: "u00002")
        let revalidated = try #require(home["more"])
        guard case .ready(let kept) = revalidated.state else {
            Issue.record("refresh lost the content")
            return
        }
        #expect(kept == content, "a 304 keeps the content")
        #expect(![nil, slot.impressionID, fresh].contains(revalidated.impressionID), "the slot holds the id of the page as shown now")
        reporter.report(try #require(revalidated.impression))
        #expect(reporter.events.count == 3)
        try await client.send(reporter.events)

        while true {
            let outcome = try await client.api.experiment(path: .init(id: "client-feed-exp")).ok.body.json
            if outcome.impressions == 2 && outcome.winsB == 1 {
                #expect(outcome.ties == 1 && outcome.winsA == 0, "\(outcome)")
                #expect(outcome.surfaces.map(\.surface) == ["home/more"], "\(outcome.surfaces)")
                let surface = try #require(outcome.surfaces.first)
                #expect((surface.impressions, surface.winsA, surface.winsB, surface.ties) == (2, 0, 1, 1), "\(surface)")
                break
            }
            try #require(ContinuousClock.now < deadline + .seconds(60), "the worker did not credit the events: \(outcome)")
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    @Test("A refused JWT is fetched anew once and the request sent again; a good one is reused")
    func refreshingCredential() async throws {
        let fixture = try await WorkerFixture(documents: 100, users: 5)
        let issuer = try await TestTokenIssuer()
        let gateway = try await Self.start(fixture, experiment: "jwt-exp", environment: [
            "BRAID_IDENTITY_MODE": "jwt", "BRAID_IDENTITY_JWT_ISSUER": issuer.issuer, "BRAID_IDENTITY_JWT_AUDIENCE": issuer.audience,
            "BRAID_IDENTITY_JWT_HS256_KEY": issuer.hs256Key,
        ])
        defer { gateway.process.signal(SIGTERM) }
        let fetches = Counter()
        // The first token is long expired (past the gateway's leeway): the gateway refuses it.
        let credential = RefreshingCredential {
            let first = fetches.increment() == 1
            return try await issuer.token(for: "u00003", algorithm: .hs256, expiresIn: first ? -3_600 : 600)
        }
        let client = try Self.client(gateway, credentials: credential)
        let layout = try await client.feedLayout("home")
        #expect(layout.user == "u00003")
        #expect(fetches.value == 2, "one refused token, one new one: \(fetches.value) fetches")
        _ = try await client.feedLayout("profile")
        #expect(fetches.value == 2, "a good token is reused")

        // Without a credential the same route is a 401 the client reports as such.
        let anonymous = try Self.client(gateway)
        do {
            _ = try await anonymous.feedLayout("home")
            Issue.record("a personalised route answered without a credential")
        } catch {
            #expect(error.status == 401 && error.code == "unauthenticated", "\(error)")
        }
    }
}

final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() -> Int { count.withLock { $0 += 1; return $0 } }
    var value: Int { count.withLock { $0 } }
}
