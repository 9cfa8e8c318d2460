import BraidHarness
import Foundation
import Synchronization

/// Walks paginated search sessions against a gateway: each of ``walkers`` concurrent walkers
/// starts a session on one of ``queries`` (round robin), follows `next_cursor` for up to
/// ``pagesPerSession`` pages, and starts the next, until told to stop or its time is up.
///
/// Each session is checked:
/// - duplicate: a document id seen twice in the session;
/// - gap: positions that are not 0, 1, 2, … in order, or a page short of `per_page` while a
///   `next_cursor` follows.
///
/// Every page is recorded (when, status, degraded, snapshot), so a fault scenario can tell
/// when pages were degraded and when they interleaved again.
public struct SessionWalker: Sendable {
    /// GETs a path with its query (`/v1/search?…`): the status (0 when nothing answered), the
    /// body, and what went wrong, if anything.
    public typealias Fetch = @Sendable (String) async -> (status: Int, body: Data, failure: String?)

    public var queries: [String]
    public var walkers = 2
    public var pagesPerSession = 6
    public var perPage = 10
    private let fetch: Fetch

    /// Walks sessions through `fetch` (an in-process gateway, for instance).
    public init(queries: [String], fetch: @escaping Fetch) {
        precondition(!queries.isEmpty, "a walker needs queries")
        self.queries = queries
        self.fetch = fetch
    }

    /// Walks sessions against the gateway at `baseURL` (`http://127.0.0.1:<port>`).
    public init(baseURL: String, queries: [String]) {
        self.init(queries: queries) { path in
            do {
                let response = try await HTTPProbe.request(baseURL + path, timeout: .seconds(10))
                let failure = response.status == 200 ? nil : "HTTP \(response.status) for \(path): \(response.text.prefix(300))"
                return (response.status, response.body, failure)
            } catch {
                return (0, Data(), "request failed: \(path): \(error)")
            }
        }
    }

    /// One page asked for.
    public struct PageVisit: Sendable {
        /// When the answer came.
        public var at: ContinuousClock.Instant
        public var query: String
        public var session: String
        /// The HTTP status; 0 when nothing answered.
        public var status: Int
        /// The page, for a 200 with a page body.
        public var page: ServedPage?

        public var degraded: Bool { page?.degraded ?? false }
        public var snapshot: Int64? { page?.snapshot }
    }

    /// One session, walked.
    public struct WalkedSession: Sendable {
        public var query: String
        public var id: String
        public var visits: [PageVisit] = []
        /// What went wrong, in words (non-200 answers, unreadable bodies).
        public var problems: [String] = []

        /// Whether every page asked for was a readable 200.
        public var completed: Bool { visits.allSatisfy { $0.status == 200 && $0.page != nil } }
        public var ids: [String] { visits.flatMap { $0.page?.items.map(\.id) ?? [] } }
        public var positions: [Int] { visits.flatMap { $0.page?.items.map(\.position) ?? [] } }
        /// A document id seen twice.
        public var hasDuplicates: Bool { Set(ids).count != ids.count }
        /// Positions not 0, 1, 2, … or a short page followed by a cursor.
        public var hasGap: Bool {
            positions != Array(0..<positions.count) || visits.contains { visit in
                guard let page = visit.page, page.nextCursor != nil else { return false }
                return page.items.count < perPage
            }
        }
        /// Whether any page showed documents of a snapshot.
        public var interleaved: Bool { visits.contains { $0.page?.hasSnapshotItems ?? false } }
        let perPage: Int
    }

    /// What a walk saw, summed over sessions.
    public struct Totals: Sendable, Equatable {
        /// Sessions whose every page was a 200 (the others are counted in the page figures only).
        public var sessions = 0
        public var pages = 0
        public var non200 = 0
        public var status5xx = 0
        /// Pages nothing answered.
        public var errors = 0
        public var degraded = 0
        /// Degraded pages that still showed snapshot documents (a degraded page is live-only).
        public var degradedWithSnapshotItems = 0
        public var sessionsWithDuplicates = 0
        public var sessionsWithGaps = 0
        public var interleavedSessions = 0

        public init() {}

        /// Counts a session's pages, and the session itself when it completed.
        public mutating func add(_ session: WalkedSession) {
            for visit in session.visits {
                pages += 1
                if visit.status != 200 {
                    non200 += 1
                    if visit.status >= 500 { status5xx += 1 }
                    if visit.status == 0 { errors += 1 }
                }
                if visit.degraded {
                    degraded += 1
                    if visit.page?.hasSnapshotItems == true { degradedWithSnapshotItems += 1 }
                }
            }
            guard session.completed else { return }
            sessions += 1
            if session.interleaved { interleavedSessions += 1 }
            if session.hasDuplicates { sessionsWithDuplicates += 1 }
            if session.hasGap { sessionsWithGaps += 1 }
        }
    }

    /// Everything a walk saw.
    public struct Report: Sendable {
        public var totals = Totals()
        /// Every page, in the order the answers came.
        public var visits: [PageVisit] = []
        public var problems: [String] = []
    }

    /// Walks the session `id` on `query` from page 1 (`per_page` ``perPage``) for at most
    /// `maxPages` pages (default ``pagesPerSession``), stopping at the first page that is not
    /// a readable 200 or has no `next_cursor`.
    public func walk(query: String, session id: String, maxPages: Int? = nil) async -> WalkedSession {
        var session = WalkedSession(query: query, id: id, perPage: perPage)
        let q = ServedPage.queryComponent(query)
        var path = "/v1/search?q=\(q)&per_page=\(perPage)&session=\(id)"
        for _ in 0..<(maxPages ?? pagesPerSession) {
            let (status, body, failure) = await fetch(path)
            let page = status == 200 ? ServedPage(json: body) : nil
            session.visits.append(PageVisit(at: .now, query: query, session: id, status: status, page: page))
            if let failure { session.problems.append(failure) }
            guard let page else {
                if status == 200 { session.problems.append("not a page for \(path): \(String(decoding: body.prefix(300), as: UTF8.self))") }
                break
            }
            guard let cursor = page.nextCursor else { break }
            path = "/v1/search?q=\(q)&cursor=\(ServedPage.queryComponent(cursor))&session=\(id)"
        }
        return session
    }

    /// Starts the walkers; they walk until ``Walk/finish()`` or until `duration` has passed
    /// (sessions under way are finished first).
    public func start(for duration: Duration) -> Walk {
        let stop = Walk.Flag()
        let deadline = ContinuousClock.now + duration
        let walker = self
        let task = Task {
            await withTaskGroup(of: Report.self) { group in
                for index in 0..<walker.walkers {
                    group.addTask {
                        var report = Report()
                        var n = 0
                        while ContinuousClock.now < deadline, !stop.isSet {
                            let session = await walker.walk(query: walker.queries[(index + n) % walker.queries.count], session: "w\(index)-\(n)")
                            report.totals.add(session)
                            report.visits += session.visits
                            report.problems += session.problems
                            n += 1
                            await Task.yield()
                        }
                        return report
                    }
                }
                var all = Report()
                for await report in group {
                    all.totals.add(report.totals)
                    all.visits += report.visits
                    all.problems += report.problems
                }
                all.visits.sort { $0.at < $1.at }
                return all
            }
        }
        return Walk(flag: stop, task: task)
    }

    /// Walkers at work.
    public final class Walk: Sendable {
        final class Flag: Sendable {
            private let value = Atomic<Bool>(false)
            var isSet: Bool { value.load(ordering: .relaxed) }
            func set() { value.store(true, ordering: .relaxed) }
        }

        private let flag: Flag
        private let task: Task<Report, Never>

        init(flag: Flag, task: Task<Report, Never>) {
            self.flag = flag
            self.task = task
        }

        deinit {
            flag.set()  // a scenario that failed half-way does not leave walkers behind
        }

        /// Tells the walkers to stop after their current session and returns what they saw.
        public func finish() async -> Report {
            flag.set()
            return await task.value
        }
    }
}

extension SessionWalker.Totals {
    mutating func add(_ other: Self) {
        sessions += other.sessions
        pages += other.pages
        non200 += other.non200
        status5xx += other.status5xx
        errors += other.errors
        degraded += other.degraded
        degradedWithSnapshotItems += other.degradedWithSnapshotItems
        sessionsWithDuplicates += other.sessionsWithDuplicates
        sessionsWithGaps += other.sessionsWithGaps
        interleavedSessions += other.interleavedSessions
    }
}
