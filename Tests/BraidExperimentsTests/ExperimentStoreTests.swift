import BraidContracts
import BraidCore
import BraidExperiments
import BraidPrecompute
import BraidRedis
import BraidTestSupport
import Foundation
import Testing

@Suite("experiment credit against a real Redis", .integration)
struct ExperimentStoreTests {
    /// Random impressions of `teams` teams and click streams (repeats, clicks before their
    /// impression event, impressions never clicked), credited by the store in Redis and by the
    /// pure model (``PairwiseTally``); every pair must agree.
    @Test(arguments: [2, 3, 5])
    func everyPairMatchesThePureMultileaveCredit(teams: Int) async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let store = ExperimentStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")))
            var random = SeededGenerator(seed: UInt64(teams))
            var model = PairwiseTally(teamCount: teams)
            for index in 0..<60 {
                let slotTeams = (0..<10).map { _ in Int.random(in: 0..<teams, using: &random) }
                let token = ImpressionToken(
                    experiment: "multi", offset: 0, slotTeams: slotTeams, teamCount: teams, creditWindow: 0..<10, nonce: UInt64(index))
                let clicked = (0..<Int.random(in: 0...4, using: &random)).map { _ in Int.random(in: 0..<10, using: &random) }
                var events = clicked.map { ExperimentEvent.make(.click, token: token, position: $0)! }
                events.insert(ExperimentEvent.make(.impression, token: token)!, at: Int.random(in: 0...events.count, using: &random))
                for event in events { try await store.record(event) }
                var clicks = [Int](repeating: 0, count: teams)
                for position in Set(clicked) { clicks[slotTeams[position]] += 1 }
                model.record(clicks: clicks)
            }
            let outcome = try await store.outcome(of: "multi")
            #expect(outcome.impressions == 60)
            #expect(outcome.teams == teams)
            #expect(outcome.pairs.count == teams * (teams - 1) / 2)
            for pair in outcome.pairs {
                let expected = try #require(model[TeamPair(pair.first, pair.second)])
                #expect(
                    (pair.winsFirst, pair.winsSecond, pair.ties) == (expected.winsA, expected.winsB, expected.ties),
                    "pair \(pair.first)-\(pair.second): store \(pair), model \(expected)")
                #expect(pair.preference == expected.preference)
            }
            let ab = try #require(model[TeamPair(0, 1)])
            #expect((outcome.winsA, outcome.winsB, outcome.ties) == (ab.winsA, ab.winsB, ab.ties))
        }
    }

    @Test func eventsThatAreNotEvidenceChangeNothing() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let store = ExperimentStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")))
            // Slots 0-2 are A's before start 3: outside the window.
            let token = ImpressionToken(experiment: "window", offset: 0, teams: [.a, .a, .a, .b, .a], creditWindow: 3..<5, nonce: 1)
            #expect(try await store.record(ExperimentEvent.make(.click, token: token, position: 0)!) == false)
            #expect(try await store.outcome(of: "window").impressions == 0)
            #expect(try await store.record(ExperimentEvent.make(.click, token: token, position: 3)!) == true)
            let outcome = try await store.outcome(of: "window")
            #expect((outcome.impressions, outcome.winsA, outcome.winsB, outcome.ties) == (1, 0, 1, 0))
        }
    }

    @Test("A duplicate (retry, replay, second click on a position) is counted as such and never credited twice")
    func duplicatesAreCountedNotCredited() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let store = ExperimentStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")))
            let now = Date()
            let token = ImpressionToken(
                experiment: "dup", offset: 0, teams: [.a, .b, .a, .b], creditWindow: 0..<4, nonce: 9,
                issuedAt: Int64(now.timeIntervalSince1970))
            let impression = ExperimentEvent.make(.impression, token: token)!
            let click = ExperimentEvent.make(.click, token: token, position: 1)!
            #expect(try await store.apply(impression, now: now) == .credited)
            #expect(try await store.apply(click, now: now) == .credited)
            #expect(try await store.apply(impression, now: now) == .duplicate)
            #expect(try await store.apply(click, now: now) == .duplicate)
            #expect(try await store.apply(click, now: now) == .duplicate)
            let outcome = try await store.outcome(of: "dup")
            #expect((outcome.impressions, outcome.winsA, outcome.winsB, outcome.ties) == (1, 0, 1, 0), "\(outcome)")
            #expect(outcome.duplicates == 3)
            #expect(outcome.late == 0)
        }
    }

    @Test("After the impression state expired, a replayed old event counts nothing: it is late")
    func oldEventsDoNotCountAgainAfterTheStateExpired() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let keys = CacheKeys(prefix: TestEnvironment.uniqueName("braid"))
            let store = ExperimentStore(redis: redis, keys: keys)
            let issued = Date(timeIntervalSince1970: 1_800_000_000)
            let token = ImpressionToken(
                experiment: "old", offset: 0, teams: [.a, .b], creditWindow: 0..<2, nonce: 11,
                issuedAt: Int64(issued.timeIntervalSince1970))
            let click = ExperimentEvent.make(.click, token: token, position: 1)!
            #expect(try await store.apply(click, now: issued) == .credited)
            // The retention sweep deleted the state after its seven days (deleted here instead of waiting).
            let experiment = keys.experiment("old")
            _ = try await redis.del([experiment.impression(token.id), experiment.clickedPositions(token.id)])
            let later = issued.addingTimeInterval(TimeInterval(ImpressionValidity.impressionStateTTLSeconds))
            #expect(try await store.apply(click, now: later) == .late)
            let outcome = try await store.outcome(of: "old")
            #expect((outcome.impressions, outcome.winsB) == (1, 1), "the replay did not count again: \(outcome)")
            #expect(outcome.late == 1)
        }
    }
    @Test("Credit is broken down by surface: search and each feed component, adding up to the experiment's")
    func creditBySurface() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let store = ExperimentStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")))
            let issued = Date()
            let more = FeedComponentName(feed: "home", component: "more")
            let deals = FeedComponentName(feed: "home", component: "deals")
            // (surface, clicked teams): B wins, A wins, ties, and an impression never clicked.
            let impressions: [(FeedComponentName?, [Int])] = [
                (nil, [1]), (nil, [0]), (nil, []), (more, [1]), (more, [1]), (more, [0, 1]), (deals, [0]),
            ]
            for (nonce, (component, clicks)) in impressions.enumerated() {
                let token = ImpressionToken(
                    experiment: "surfaces", offset: 0, slotTeams: [0, 1], teamCount: 2, creditWindow: 0..<2, nonce: UInt64(nonce + 1),
                    issuedAt: Int64(issued.timeIntervalSince1970), snapshotAgeSeconds: 60, component: component)
                #expect(token.formatVersion == (component == nil ? 4 : 5))
                _ = try await store.apply(ExperimentEvent.make(.impression, token: token)!, now: issued)
                for team in clicks { _ = try await store.apply(ExperimentEvent.make(.click, token: token, position: team)!, now: issued) }
            }
            // A replayed click moves nothing, on the surface either.
            let replayed = ImpressionToken(
                experiment: "surfaces", offset: 0, slotTeams: [0, 1], teamCount: 2, creditWindow: 0..<2, nonce: 4,
                issuedAt: Int64(issued.timeIntervalSince1970), snapshotAgeSeconds: 60, component: more)
            #expect(try await store.apply(ExperimentEvent.make(.click, token: replayed, position: 1)!, now: issued) == .duplicate)

            let outcome = try await store.outcome(of: "surfaces")
            #expect((outcome.impressions, outcome.winsA, outcome.winsB, outcome.ties) == (7, 2, 3, 2), "\(outcome)")
            #expect(outcome.surfaces.map(\.surface) == ["search", "home/deals", "home/more"])
            let counts = outcome.surfaces.map { [$0.impressions, $0.winsA, $0.winsB, $0.ties] }
            #expect(counts == [[3, 1, 1, 1], [1, 1, 0, 0], [3, 0, 2, 1]], "\(outcome.surfaces)")
            // Each surface's counts add up to the experiment's.
            #expect(counts.reduce([0, 0, 0, 0]) { zip($0, $1).map(+) } == [7, 2, 3, 2])
        }
    }

    /// Impressions of a three-team multileave: (surface, snapshot age in seconds, clicked teams);
    /// slot `t` is team `t`'s. Clicks on teams 1 and 2 move pairs other than (0, 1).
    static let threeTeams: [(FeedComponentName?, Int, [Int])] = [
        (nil, 60, [2]),  // (0,1) tie, (0,2) second, (1,2) second
        (FeedComponentName(feed: "home", component: "more"), 7_200, [1, 2]),  // (0,1) second, (0,2) second, (1,2) tie
        (FeedComponentName(feed: "home", component: "more"), 7_200, [2]),  // (0,1) tie, (0,2) second, (1,2) second
        (nil, 60, [1]),  // (0,1) second, (0,2) tie, (1,2) first
        (nil, 60, []),  // every pair ties
    ]

    /// Credits ``threeTeams`` in experiment `experiment`: an impression event, then each click.
    static func creditThreeTeams(_ store: ExperimentStore, experiment: String, issued: Date) async throws {
        for (nonce, (component, age, clicks)) in threeTeams.enumerated() {
            let token = ImpressionToken(
                experiment: experiment, offset: 0, slotTeams: [0, 1, 2], teamCount: 3, creditWindow: 0..<3, nonce: UInt64(nonce + 1),
                issuedAt: Int64(issued.timeIntervalSince1970), snapshotAgeSeconds: age, component: component)
            _ = try await store.apply(ExperimentEvent.make(.impression, token: token)!, now: issued)
            for team in clicks { _ = try await store.apply(ExperimentEvent.make(.click, token: token, position: team)!, now: issued) }
        }
    }

    @Test("Under a multileave of three teams every pair has its own freshness and surfaces, counting its own clicks")
    func everyPairIsBrokenDownByAgeAndSurface() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let store = ExperimentStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")))
            try await Self.creditThreeTeams(store, experiment: "three", issued: Date())
            let outcome = try await store.outcome(of: "three")
            #expect(outcome.pairs.map { [$0.first, $0.second] } == [[0, 1], [0, 2], [1, 2]])
            func pair(_ first: Int, _ second: Int) throws -> ExperimentOutcome.Pair {
                try #require(outcome.pairs.first { $0.first == first && $0.second == second })
            }
            // [impressions, wins of the pair's first, of its second, ties] per bucket and surface.
            func ages(_ pair: ExperimentOutcome.Pair) -> [String: [Int]] {
                Dictionary(uniqueKeysWithValues: pair.freshness.map { ($0.age.rawValue, [$0.impressions, $0.winsA, $0.winsB, $0.ties]) })
            }
            func surfaces(_ pair: ExperimentOutcome.Pair) -> [String: [Int]] {
                Dictionary(uniqueKeysWithValues: pair.surfaces.map { ($0.surface, [$0.impressions, $0.winsA, $0.winsB, $0.ties]) })
            }
            let none = [0, 0, 0, 0]
            // (1, 2): searches (60 s old) imp. 1 second, imp. 4 first, imp. 5 tie; home/more (2 h) imp. 2 tie, imp. 3 second.
            let oneTwo = try pair(1, 2)
            #expect(oneTwo.freshness.map(\.age) == SnapshotAge.allCases)
            #expect(ages(oneTwo) == ["under_15m": [3, 1, 1, 1], "15m_to_1h": none, "1h_to_6h": [2, 0, 1, 1], "6h_or_more": none, "unknown": none])
            #expect(oneTwo.surfaces.map(\.surface) == ["search", "home/more"])
            #expect(surfaces(oneTwo) == ["search": [3, 1, 1, 1], "home/more": [2, 0, 1, 1]])
            // (0, 2): team 0 never clicked, team 2 in imp. 1, 2, 3.
            let zeroTwo = try pair(0, 2)
            #expect(ages(zeroTwo) == ["under_15m": [3, 0, 1, 2], "15m_to_1h": none, "1h_to_6h": [2, 0, 2, 0], "6h_or_more": none, "unknown": none])
            #expect(surfaces(zeroTwo) == ["search": [3, 0, 1, 2], "home/more": [2, 0, 2, 0]])
            // Each pair's breakdowns add up to the pair's own counts.
            for entry in outcome.pairs {
                let total = [outcome.impressions, entry.winsFirst, entry.winsSecond, entry.ties]
                #expect(ages(entry).values.reduce(none) { zip($0, $1).map(+) } == total, "\(entry.first)-\(entry.second)")
                #expect(surfaces(entry).values.reduce(none) { zip($0, $1).map(+) } == total, "\(entry.first)-\(entry.second)")
            }
            // (0, 1) in pairs is the top level, which keeps its own fields.
            let zeroOne = try pair(0, 1)
            #expect(zeroOne.freshness == outcome.freshness && zeroOne.surfaces == outcome.surfaces)
            #expect(ages(zeroOne)["under_15m"] == [3, 0, 1, 2] && ages(zeroOne)["1h_to_6h"] == [2, 0, 1, 1])
        }
    }

    @Test("An impression recorded before pairs had age and surface counters leaves them alone when clicked")
    func impressionsFromBeforePairSlicesDoNotMoveThem() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let keys = CacheKeys(prefix: TestEnvironment.uniqueName("braid"))
            let store = ExperimentStore(redis: redis, keys: keys)
            let issued = Date()
            let token = ImpressionToken(
                experiment: "upgrade", offset: 0, slotTeams: [0, 1, 2], teamCount: 3, creditWindow: 0..<3, nonce: 1,
                issuedAt: Int64(issued.timeIntervalSince1970), snapshotAgeSeconds: 60)
            _ = try await store.apply(ExperimentEvent.make(.impression, token: token)!, now: issued)
            // As an older worker left it: no pair slices counted, none marked in the state.
            let experiment = keys.experiment("upgrade")
            var removed: [RESPArgument] = [.string("HDEL"), .string(experiment.counters)]
            for pair in ["0-2", "1-2"] { removed += [.string("age:under_15m:\(pair):ties"), .string("surface:search:\(pair):ties")] }
            _ = try await redis.send(removed, keys: [experiment.counters])
            _ = try await redis.send([.string("HDEL"), .string(experiment.impression(token.id)), .string("pair_slices")], keys: [experiment.impression(token.id)])
            #expect(try await store.apply(ExperimentEvent.make(.click, token: token, position: 2)!, now: issued) == .credited)
            let outcome = try await store.outcome(of: "upgrade")
            let oneTwo = try #require(outcome.pairs.first { $0.first == 1 && $0.second == 2 })
            #expect(oneTwo.winsSecond == 1, "the pair itself is credited: \(oneTwo)")
            #expect(oneTwo.freshness.allSatisfy { [$0.winsA, $0.winsB, $0.ties] == [0, 0, 0] }, "\(oneTwo.freshness)")
            #expect(oneTwo.surfaces.isEmpty, "\(oneTwo.surfaces)")
        }
    }
}
