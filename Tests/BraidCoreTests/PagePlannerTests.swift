import BraidTestSupport
@testable import BraidCore
import Testing

@Suite("page planner")
struct PagePlannerTests {
    static let cases = 600

    @Test func closedFormAgreesWithTheSequentialDefinition() {
        var rng = SeededGenerator(seed: 1)
        for _ in 0..<Self.cases {
            let c = RandomCase.random(using: &rng)
            let planner = c.planner
            let reference = c.reference.walk(limit: 400)
            let end = planner.end!
            #expect(end == reference.count, "\(c)")
            for slot in reference {
                #expect(planner.slot(at: slot.position) == slot, "\(c) at \(slot.position)")
            }
            #expect(planner.slot(at: end) == nil, "\(c)")
            // Counts before any position agree with the walk.
            for p in stride(from: 0, through: end, by: 7) {
                let prefix = reference.prefix(p)
                let expected = (prefix.filter { $0.team == .a }.count, prefix.filter { $0.team == .b }.count)
                #expect(planner.counts(before: p) == expected, "\(c) before \(p)")
            }
        }
    }

    @Test func pagesOfAnySizesConcatenateToTheWholeList() {
        var rng = SeededGenerator(seed: 2)
        for _ in 0..<Self.cases {
            let c = RandomCase.random(using: &rng)
            let planner = c.planner
            let end = planner.end!
            let whole = planner.plan(offset: 0, size: end)
            var concatenated: [PlannedSlot] = []
            var offset = 0
            while offset < end {
                let page = planner.plan(offset: offset, size: Int.random(in: 1...50, using: &rng))
                #expect(!page.slots.isEmpty)
                concatenated += page.slots
                offset += page.slots.count
            }
            #expect(concatenated == whole.slots, "\(c)")
            #expect(planner.plan(offset: end, size: 10).slots.isEmpty)
        }
    }

    @Test func everyDocumentOfAAndOfBAppearsExactlyOnce() {
        var rng = SeededGenerator(seed: 3)
        for _ in 0..<Self.cases {
            let c = RandomCase.random(using: &rng)
            let planner = c.planner
            let slots = planner.plan(offset: 0, size: planner.end!).slots
            let aIndices = slots.filter { $0.team == .a }.map(\.index)
            let bIndices = slots.filter { $0.team == .b }.map(\.index)
            #expect(aIndices == Array(0..<c.aTotal), "\(c)")
            #expect(bIndices == Array(0..<planner.placed), "\(c)")
        }
    }

    @Test func eachPageNeedsOneContiguousRangeOfAAndOfB() {
        var rng = SeededGenerator(seed: 4)
        for _ in 0..<Self.cases {
            let c = RandomCase.random(using: &rng)
            let planner = c.planner
            let offset = Int.random(in: 0...300, using: &rng)
            let page = planner.plan(offset: offset, size: Int.random(in: 1...50, using: &rng))
            #expect(page.slots.filter { $0.team == .a }.map(\.index) == Array(page.aRange), "\(c) offset \(offset)")
            #expect(page.slots.filter { $0.team == .b }.map(\.index) == Array(page.bRange), "\(c) offset \(offset)")
            #expect(page.slots.map(\.position) == Array(offset..<(offset + page.slots.count)))
        }
    }

    @Test func withUnknownTotalThePageAskedOfTheLiveBackendCoversTheKnownTotalPlan() throws {
        // The gateway plans with T unknown, asks A for that range, learns T, plans again:
        // the second plan's A range must lie inside the first, so one live call suffices.
        var rng = SeededGenerator(seed: 5)
        for _ in 0..<Self.cases {
            let c = RandomCase.random(using: &rng)
            let offset = Int.random(in: 0...300, using: &rng)
            let size = Int.random(in: 1...50, using: &rng)
            let unknown = PagePlanner(configuration: c.configuration, bCount: c.bCount, aTotal: nil, seed: c.seed).plan(offset: offset, size: size)
            let known = c.planner.plan(offset: offset, size: size)
            #expect(unknown.end == nil)
            #expect(known.aRange.isEmpty || (known.aRange.lowerBound >= unknown.aRange.lowerBound && known.aRange.upperBound <= unknown.aRange.upperBound), "\(c)")
        }
    }

    /// The seed write-up's observation: with start 0 and pattern AB, page k (0-based) starts
    /// with the second ranking exactly when k and per_page are both odd.
    @Test(arguments: 1...12)
    func pageStartsWithBExactlyWhenPageIndexAndPageSizeAreOdd(perPage: Int) throws {
        let configuration = try InterleavingConfiguration(start: 0, pattern: [.a, .b])
        let planner = PagePlanner(configuration: configuration, bCount: 10_000, aTotal: 10_000)
        for k in 0..<40 {
            let first = try #require(planner.plan(offset: k * perPage, size: perPage).slots.first)
            #expect((first.team == .b) == (k % 2 == 1 && perPage % 2 == 1), "k=\(k) per_page=\(perPage)")
        }
    }

    @Test func farOffsetsArePlannedInClosedForm() throws {
        let configuration = try InterleavingConfiguration(start: 3, pattern: [.a, .a, .b])
        let planner = PagePlanner(configuration: configuration, bCount: Int(Int32.max), aTotal: nil)
        let page = planner.plan(offset: 1_000_000_000, size: 30)
        #expect(page.slots.count == 30)
        // Window position k = p - 3; in AAB, k % 3 == 2 is B, with k / 3 B documents before.
        for slot in page.slots {
            let k = slot.position - 3
            #expect(slot.team == (k % 3 == 2 ? .b : .a))
            #expect(slot.index == (slot.team == .b ? k / 3 : slot.position - (k + 1) / 3))
        }
    }

    @Test func teamDraftRoundsHoldOneSlotOfEachTeamAndAreStable() throws {
        let configuration = try InterleavingConfiguration(start: 2, mode: .teamDraft)
        let planner = PagePlanner(configuration: configuration, bCount: 1000, aTotal: 1000, seed: 42)
        let slots = planner.plan(offset: 2, size: 200).slots
        for round in stride(from: 0, to: 200, by: 2) {
            #expect(Set([slots[round].team, slots[round + 1].team]) == [.a, .b])
        }
        let firsts = (0..<1000).map { TeamDraft.firstTeam(seed: 42, round: $0) }
        #expect(firsts == (0..<1000).map { TeamDraft.firstTeam(seed: 42, round: $0) })
        let bFirst = firsts.filter { $0 == .b }.count
        #expect((400...600).contains(bFirst), "the coin is badly biased: \(bFirst)/1000")
        #expect(firsts != (0..<1000).map { TeamDraft.firstTeam(seed: 43, round: $0) })
    }

    @Test func configurationValidation() throws {
        #expect(throws: InterleavingConfigurationError.patternNeedsBothTeams) { try InterleavingConfiguration(pattern: [.a, .a]) }
        #expect(throws: InterleavingConfigurationError.negativeStart) { try InterleavingConfiguration(start: -1) }
        #expect(throws: InterleavingConfigurationError.invalidPatternLetter("C")) { try InterleavingConfiguration.parsePattern("ABC") }
        #expect(try InterleavingConfiguration.parsePattern("AAB") == [.a, .a, .b])
    }

    @Test func stableHashDependsOnEveryField() throws {
        let base = try InterleavingConfiguration(start: 0, maxDocs: nil, pattern: [.a, .b], mode: .pattern)
        let variants = [
            try InterleavingConfiguration(start: 1, maxDocs: nil, pattern: [.a, .b], mode: .pattern),
            try InterleavingConfiguration(start: 0, maxDocs: 5, pattern: [.a, .b], mode: .pattern),
            try InterleavingConfiguration(start: 0, maxDocs: nil, pattern: [.b, .a], mode: .pattern),
            try InterleavingConfiguration(start: 0, maxDocs: nil, pattern: [.a, .b], mode: .teamDraft),
        ]
        let hashes = Set(variants.map { $0.stableHash(ranking: "featured") } + [base.stableHash(ranking: "featured"), base.stableHash(ranking: "fresh")])
        #expect(hashes.count == 6)
    }
}
