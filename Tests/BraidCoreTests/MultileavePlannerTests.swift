import BraidCore
import BraidTestSupport
import Testing

/// The sequential definition of a team-draft multileave (``MultileaveDraft``), walked from
/// position 0 with every round simulated: the reference the closed-form planner must match.
struct NaiveMultileave {
    var start: Int
    var maxDocs: Int?
    var rankings: [[String]]
    var liveTotal: Int
    var seed: UInt64

    func walk() -> (slots: [MultileaveSlot], window: Set<Int>) {
        let candidates = rankings.map { Array($0.prefix(maxDocs ?? Int.max)) }
        var slots: [MultileaveSlot] = []
        var window: Set<Int> = []
        var placed: Set<String> = []
        var liveUsed = 0
        func add(_ team: Int, _ index: Int) { slots.append(MultileaveSlot(position: slots.count, team: team, index: index)) }
        func best(_ cached: Int) -> Int? { candidates[cached].indices.first { !placed.contains(candidates[cached][$0]) } }
        while slots.count < start, liveUsed < liveTotal { add(0, liveUsed); liveUsed += 1 }
        var round = 0
        var windowOpen = true
        while true {
            let cachedLeft = candidates.indices.contains { best($0) != nil }
            if !cachedLeft {
                while liveUsed < liveTotal { add(0, liveUsed); liveUsed += 1 }
                break
            }
            let roundStart = slots.count
            var everyone = true
            for team in TeamDraft.order(seed: seed, round: round, teams: rankings.count + 1) {
                if team == 0 {
                    if liveUsed < liveTotal { add(0, liveUsed); liveUsed += 1 } else { everyone = false }
                } else if let rank = best(team - 1) {
                    placed.insert(candidates[team - 1][rank])
                    add(team, rank)
                } else {
                    everyone = false
                }
            }
            windowOpen = windowOpen && everyone && roundStart >= start
            if windowOpen { window.formUnion(roundStart..<slots.count) }
            round += 1
        }
        return (slots, window)
    }
}

struct MultileaveCase: CustomStringConvertible {
    var configuration: MultileaveConfiguration
    var rankings: [[String]]
    var liveTotal: Int
    var seed: UInt64

    var description: String {
        "start=\(configuration.start) max_docs=\(configuration.maxDocs.map(String.init) ?? "nil") T=\(liveTotal) seed=\(seed) rankings=\(rankings.map { $0.joined(separator: ",") })"
    }

    var draft: MultileaveDraft { MultileaveDraft(configuration: configuration, rankings: rankings, seed: seed) }
    var planner: MultileavePlanner { draft.planner(liveTotal: liveTotal) }
    var naive: NaiveMultileave {
        NaiveMultileave(start: configuration.start, maxDocs: configuration.maxDocs, rankings: rankings, liveTotal: liveTotal, seed: seed)
    }

    /// One to four cached rankings over a shared pool of 60 documents, so they overlap; now
    /// and then empty, or holding a duplicate.
    static func random(using rng: inout SeededGenerator, cachedRankings: ClosedRange<Int> = 1...4) -> MultileaveCase {
        let pool = (0..<60).map { "d\($0)" }
        let rankings = (0..<Int.random(in: cachedRankings, using: &rng)).map { _ -> [String] in
            var ranking = Array(pool.shuffled(using: &rng).prefix(Int.random(in: 0...35, using: &rng)))
            if ranking.count > 2, Int.random(in: 0..<8, using: &rng) == 0 { ranking.append(ranking[0]) }
            return ranking
        }
        let configuration = try! MultileaveConfiguration(
            start: Int.random(in: 0...20, using: &rng), maxDocs: Bool.random(using: &rng) ? nil : Int.random(in: 0...40, using: &rng))
        return MultileaveCase(configuration: configuration, rankings: rankings, liveTotal: Int.random(in: 0...200, using: &rng), seed: rng.next())
    }
}

@Suite("multileave planner")
struct MultileavePlannerTests {
    static let cases = 500

    @Test func closedFormAgreesWithTheSequentialDefinition() {
        var rng = SeededGenerator(seed: 31)
        for _ in 0..<Self.cases {
            let c = MultileaveCase.random(using: &rng)
            let planner = c.planner
            let reference = c.naive.walk()
            #expect(planner.end == reference.slots.count, "\(c)")
            for slot in reference.slots {
                #expect(planner.slot(at: slot.position) == slot, "\(c) at \(slot.position)")
            }
            #expect(planner.slot(at: reference.slots.count) == nil)
            for p in stride(from: 0, through: reference.slots.count, by: 5) {
                let live = reference.slots.prefix(p).filter { $0.team == 0 }.count
                #expect(planner.counts(before: p) == (live, p - live), "\(c) before \(p)")
            }
            #expect(Set(planner.creditWindow) == reference.window, "\(c)")
        }
    }

    @Test func pagesOfAnySizeWalkTheWholeListWithEveryDocumentOnce() {
        var rng = SeededGenerator(seed: 32)
        for _ in 0..<Self.cases {
            let c = MultileaveCase.random(using: &rng)
            let planner = c.planner
            let end = planner.end!
            let whole = planner.plan(offset: 0, size: end).slots
            var walked: [MultileaveSlot] = []
            while walked.count < end {
                let page = planner.plan(offset: walked.count, size: Int.random(in: 1...40, using: &rng))
                #expect(!page.slots.isEmpty)
                walked += page.slots
            }
            #expect(walked == whole, "\(c)")
            #expect(walked.map(\.position) == Array(0..<end))
            #expect(planner.plan(offset: end, size: 10).slots.isEmpty)
            // The live ranking: indices 0..<T in order. Cached: every candidate of every
            // ranking once (shared documents once), each team in its own rank order.
            #expect(walked.filter { $0.team == 0 }.map(\.index) == Array(0..<c.liveTotal), "\(c)")
            let cached = walked.filter { $0.team > 0 }
            let ids = cached.map { c.rankings[$0.team - 1][$0.index] }
            let candidates = Set(c.rankings.flatMap { $0.prefix(c.configuration.maxDocs ?? Int.max) })
            #expect(ids.count == Set(ids).count, "a document twice: \(c)")
            #expect(Set(ids) == candidates, "\(c)")
            #expect(ids == c.draft.placedIDs)
            for team in 1...c.rankings.count {
                let ranks = cached.filter { $0.team == team }.map(\.index)
                #expect(ranks == ranks.sorted(), "\(c) team \(team)")
            }
        }
    }

    @Test func eachPageNeedsOneContiguousLiveRangeThatAnOpenPlanCovers() {
        var rng = SeededGenerator(seed: 33)
        for _ in 0..<Self.cases {
            let c = MultileaveCase.random(using: &rng)
            let offset = Int.random(in: 0...300, using: &rng)
            let size = Int.random(in: 1...50, using: &rng)
            let known = c.planner.plan(offset: offset, size: size)
            #expect(known.slots.filter { $0.team == 0 }.map(\.index) == Array(known.liveRange), "\(c) offset \(offset)")
            #expect(known.slots.map(\.position) == Array(offset..<(offset + known.slots.count)))
            // The gateway plans with T unknown, asks for that range, learns T, plans again.
            let open = c.draft.planner(liveTotal: nil).plan(offset: offset, size: size)
            #expect(open.end == nil && open.slots.count == size)
            #expect(known.liveRange.isEmpty || (open.liveRange.lowerBound <= known.liveRange.lowerBound && known.liveRange.upperBound <= open.liveRange.upperBound), "\(c)")
        }
    }

    @Test func theWindowHoldsEveryTeamEquallyOften() {
        var rng = SeededGenerator(seed: 34)
        for _ in 0..<Self.cases {
            let c = MultileaveCase.random(using: &rng)
            let window = c.planner.creditWindow
            let slots = c.planner.plan(offset: window.lowerBound, size: window.count).slots
            #expect(slots.count == window.count)
            let perTeam = (0...c.rankings.count).map { team in slots.filter { $0.team == team }.count }
            #expect(Set(perTeam).count <= 1, "\(c): \(perTeam)")
        }
    }

    @Test func oneCachedRankingIsExactlyTwoRankingTeamDraft() throws {
        var rng = SeededGenerator(seed: 35)
        for _ in 0..<Self.cases {
            var c = MultileaveCase.random(using: &rng, cachedRankings: 1...1)
            c.rankings = [uniqueIDs(c.rankings[0])]
            let interleaving = try InterleavingConfiguration(start: c.configuration.start, maxDocs: c.configuration.maxDocs, mode: .teamDraft)
            let twoRanking = PagePlanner(configuration: interleaving, bCount: c.rankings[0].count, aTotal: c.liveTotal, seed: c.seed)
            let end = try #require(twoRanking.end)
            #expect(c.planner.end == end)
            let expected = twoRanking.plan(offset: 0, size: end).slots.map { MultileaveSlot(position: $0.position, team: $0.team == .a ? 0 : 1, index: $0.index) }
            #expect(c.planner.plan(offset: 0, size: end).slots == expected, "\(c)")
            #expect(c.planner.creditWindow == twoRanking.creditWindow, "\(c)")
        }
    }

    @Test func roundOrdersArePermutationsAndTheTwoTeamOrderIsTheTeamDraftCoin() {
        for seed: UInt64 in [0, 1, 42, .max] {
            for round in 0..<500 {
                let first = TeamDraft.firstTeam(seed: seed, round: round)
                #expect(TeamDraft.order(seed: seed, round: round, teams: 2) == (first == .a ? [0, 1] : [1, 0]))
                for teams in 3...5 {
                    #expect(TeamDraft.order(seed: seed, round: round, teams: teams).sorted() == Array(0..<teams))
                }
            }
        }
        // Every team is first about equally often among five.
        var firsts = [Int](repeating: 0, count: 5)
        for round in 0..<10_000 { firsts[TeamDraft.order(seed: 7, round: round, teams: 5)[0]] += 1 }
        #expect(firsts.allSatisfy { (1_800...2_200).contains($0) }, "\(firsts)")
    }

    @Test func farOffsetsArePlannedInClosedForm() throws {
        let rankings = [(0..<50).map { "x\($0)" }, (25..<75).map { "x\($0)" }, (0..<30).map { "y\($0)" }]
        let draft = MultileaveDraft(configuration: try MultileaveConfiguration(start: 3), rankings: rankings, seed: 5)
        #expect(draft.placedCount == 105)
        let page = draft.planner(liveTotal: nil).plan(offset: 1_000_000_000, size: 30)
        #expect(page.slots.map(\.team) == Array(repeating: 0, count: 30))
        #expect(page.liveRange == (1_000_000_000 - 105)..<(1_000_000_000 - 105 + 30))
    }

    @Test func configurationValidation() throws {
        #expect(throws: InterleavingConfigurationError.negativeStart) { try MultileaveConfiguration(start: -1) }
        #expect(throws: InterleavingConfigurationError.negativeMaxDocs) { try MultileaveConfiguration(maxDocs: -1) }
        #expect(throws: MultileaveConfigurationError.noCachedRankings) { try MultileaveConfiguration.validate(rankings: []) }
        #expect(throws: MultileaveConfigurationError.tooManyCachedRankings(5)) {
            try MultileaveConfiguration.validate(rankings: ["a", "b", "c", "d", "e"])
        }
        #expect(throws: MultileaveConfigurationError.duplicateRanking("b")) { try MultileaveConfiguration.validate(rankings: ["a", "b", "b"]) }
        try MultileaveConfiguration.validate(rankings: ["featured", "fresh"])
        let base = try MultileaveConfiguration(start: 0)
        let hashes: Set<UInt64> = [
            base.stableHash(rankings: ["a", "b"]), base.stableHash(rankings: ["b", "a"]), base.stableHash(rankings: ["a"]),
            try MultileaveConfiguration(start: 1).stableHash(rankings: ["a", "b"]),
            try MultileaveConfiguration(maxDocs: 5).stableHash(rankings: ["a", "b"]),
        ]
        #expect(hashes.count == 5)
    }
}

/// Drops repeated ids, keeping the first: a snapshot without duplicates.
private func uniqueIDs(_ ids: [String]) -> [String] {
    var seen: Set<String> = []
    return ids.filter { seen.insert($0).inserted }
}
