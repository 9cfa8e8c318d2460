import BraidTestSupport
import Foundation
import Synchronization
import Testing

/// The session checks of ``SessionWalker`` on scripted pages (the walker's own logic; a real
/// gateway is what the fault scenarios walk).
@Suite("Session walker")
struct SessionWalkerTests {
    /// Pages of 10 for `query`, by cursor `c<n>`: what each query's session looks like.
    static func page(for path: String) -> (status: Int, body: Data, failure: String?) {
        let components = URLComponents(string: "http://x" + path)
        let items = components?.queryItems ?? []
        let query = items.first { $0.name == "q" }?.value ?? ""
        let number = Int(items.first { $0.name == "cursor" }?.value?.dropFirst() ?? "0") ?? 0
        func body(_ ids: [String], from start: Int, teams: String = "AB", next: Bool, degraded: Bool = false) -> Data {
            let items = ids.enumerated().map { index, id in
                let team = teams[teams.index(teams.startIndex, offsetBy: index % teams.count)]
                return #"{"id": "\#(id)", "position": \#(start + index), "team": "\#(team)"}"#
            }
            let cursor = next ? #""c\#(number + 1)""# : "null"
            let snapshot = teams.contains("B") ? "1700000000000" : "null"
            return Data(
                #"{"items": [\#(items.joined(separator: ","))], "next_cursor": \#(cursor), "degraded": \#(degraded), "interleaving": {"snapshot": \#(snapshot)}}"#
                    .utf8)
        }
        let ids = (number * 10..<number * 10 + 10).map { "d\($0)" }
        switch query {
        case "whole":  // three pages, the last one short and final
            return (200, body(number < 2 ? ids : Array(ids.prefix(4)), from: number * 10, next: number < 2), nil)
        case "twice":  // page 2 repeats a document of page 1
            return (200, body(number == 1 ? ["d3"] + ids.dropFirst() : ids, from: number * 10, next: number < 1), nil)
        case "short":  // a short page with a cursor after it
            return (200, body(Array(ids.prefix(number == 0 ? 7 : 10)), from: number == 0 ? 0 : 7, next: number < 1), nil)
        case "degraded":  // live-only pages flagged degraded, one of them wrongly showing team B
            return (200, body(ids, from: number * 10, teams: number == 0 ? "A" : "AB", next: number < 1, degraded: true), nil)
        default:
            return (503, Data(#"{"error": {"code": "unavailable"}}"#.utf8), "HTTP 503 for \(path)")
        }
    }

    static let walker = SessionWalker(queries: ["whole", "twice"]) { path in
        try? await Task.sleep(for: .milliseconds(1))
        return page(for: path)
    }

    @Test func aWholeSessionFollowsTheCursorToTheEndWithoutDuplicatesOrGaps() async {
        let session = await Self.walker.walk(query: "whole", session: "s1")
        #expect(session.visits.count == 3)
        #expect(session.positions == Array(0..<24))
        #expect(session.completed && session.interleaved)
        #expect(!session.hasDuplicates && !session.hasGap)
    }

    @Test func aRepeatedDocumentIsADuplicateAndAShortPageBeforeACursorIsAGap() async {
        let twice = await Self.walker.walk(query: "twice", session: "s2")
        #expect(twice.hasDuplicates && !twice.hasGap)
        let short = await Self.walker.walk(query: "short", session: "s3")
        #expect(short.hasGap && !short.hasDuplicates)
    }

    @Test func pagesPerSessionBoundTheWalk() async {
        let first = await Self.walker.walk(query: "whole", session: "s4", maxPages: 1)
        #expect(first.visits.count == 1 && first.completed)
    }

    @Test func totalsCountFailedPagesButOnlyCompletedSessions() async {
        var totals = SessionWalker.Totals()
        for query in ["whole", "twice", "short", "degraded", "down"] {
            totals.add(await Self.walker.walk(query: query, session: query))
        }
        #expect(totals.sessions == 4)
        #expect(totals.pages == 3 + 2 + 2 + 2 + 1)
        #expect(totals.non200 == 1 && totals.status5xx == 1 && totals.errors == 0)
        #expect(totals.degraded == 2 && totals.degradedWithSnapshotItems == 1)
        #expect(totals.sessionsWithDuplicates == 1 && totals.sessionsWithGaps == 1)
        #expect(totals.interleavedSessions == 4)
    }

    @Test func walkersStopWhenToldAndReportEveryPage() async {
        // Which walkers (`session=w<index>-<n>`) have asked for a page: stopping before one has
        // started would leave it nothing to report, however busy the machine is.
        let started = Mutex<Set<Substring>>([])
        var walker = SessionWalker(queries: ["whole", "twice"]) { path in
            if let session = path.split(separator: "session=").last?.split(separator: "-").first {
                started.withLock { _ = $0.insert(session) }
            }
            try? await Task.sleep(for: .milliseconds(1))
            return Self.page(for: path)
        }
        walker.walkers = 3
        let walk = walker.start(for: .seconds(60))
        while started.withLock({ $0.count }) < 3 { try? await Task.sleep(for: .milliseconds(5)) }
        let report = await walk.finish()
        #expect(report.totals.sessions >= 3)
        #expect(report.totals.pages == report.visits.count)
        #expect(report.totals.sessionsWithDuplicates > 0 && report.totals.non200 == 0)
        #expect(Set(report.visits.map(\.query)) == ["whole", "twice"])
        #expect(zip(report.visits, report.visits.dropFirst()).allSatisfy { $0.at <= $1.at })
    }
}
