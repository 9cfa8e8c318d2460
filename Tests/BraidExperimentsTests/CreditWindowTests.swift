@testable import BraidContracts
@testable import BraidCore
@testable import BraidExperiments
import BraidTestSupport
import Testing

/// Only the interleaved window is evidence: the planner's credit window is the full
/// team-draft rounds, tokens carry it, and credit ignores clicks outside it.
@Suite("credit window")
struct CreditWindowTests {
    /// The sequential definition with rounds made explicit: round r (window positions 2r and
    /// 2r + 1) is full when, at its first slot, A and B both have a document left; the window
    /// is the full rounds before the first one that is not.
    static func referenceWindow(_ c: RandomCase) -> Set<Int> {
        let m = c.configuration.placedCount(bCount: c.bCount)
        var window: Set<Int> = []
        var aUsed = 0, bUsed = 0
        let slots = c.reference.walk(limit: 400)
        var open = true
        for slot in slots {
            let k = slot.position - c.configuration.start
            if k >= 0, k % 2 == 0, open {
                open = aUsed < c.aTotal && bUsed < m
            }
            if k >= 0, open { window.insert(slot.position) }
            if slot.team == .a { aUsed += 1 } else { bUsed += 1 }
        }
        return window
    }

    @Test func theWindowIsTheFullTeamDraftRoundsOfTheSequentialDefinition() throws {
        var rng = SeededGenerator(seed: 21)
        for _ in 0..<800 {
            var c = RandomCase.random(using: &rng)
            c.configuration.mode = .teamDraft
            let window = c.planner.creditWindow
            #expect(Set(window) == Self.referenceWindow(c), "\(c)")
            // Equally many A and B slots in the window: neither team is favoured by its size.
            let slots = c.planner.plan(offset: window.lowerBound, size: window.count).slots
            #expect(slots.filter { $0.team == .a }.count == slots.filter { $0.team == .b }.count, "\(c)")
            // Planning with the live total unknown can only widen it (the gateway's first plan).
            let open = PagePlanner(configuration: c.configuration, bCount: c.bCount, aTotal: nil, seed: c.seed).creditWindow
            #expect(open.lowerBound == window.lowerBound && open.upperBound >= window.upperBound, "\(c)")
        }
    }

    @Test func patternModeHasNoWindow() throws {
        let planner = PagePlanner(configuration: try InterleavingConfiguration(start: 2, pattern: [.a, .b]), bCount: 10, aTotal: 100)
        #expect(planner.creditWindow.isEmpty)
    }

    @Test func clicksOutsideTheWindowDoNotCredit() throws {
        // start 3, B has 2 documents: A A A | two rounds | A A A …
        let configuration = try InterleavingConfiguration(start: 3, mode: .teamDraft)
        let planner = PagePlanner(configuration: configuration, bCount: 2, aTotal: 20, seed: 9)
        #expect(planner.creditWindow == 3..<7)
        let page = planner.plan(offset: 0, size: 10)
        let token = ImpressionToken(
            experiment: "e", offset: 0, teams: page.slots.map(\.team), creditWindow: planner.creditWindow, nonce: 1)
        let bSlot = try #require(page.slots.first { $0.team == .b }).position
        let aInWindow = try #require(page.slots.first { $0.team == .a && (3..<7).contains($0.position) }).position
        #expect(ImpressionCredit.outcome(token, clickedPositions: [0, 1, 2]) == .tie)
        #expect(ImpressionCredit.outcome(token, clickedPositions: [7, 8, 9]) == .tie)
        #expect(ImpressionCredit.outcome(token, clickedPositions: [0, 1, 2, bSlot]) == .winB)
        #expect(ImpressionCredit.outcome(token, clickedPositions: [bSlot, aInWindow, 8]) == .tie)
        #expect(ImpressionCredit.outcome(token, clickedPositions: [aInWindow, aInWindow, 42]) == .winA)
        #expect(ImpressionCredit.clicks(token, clickedPositions: [0, bSlot, aInWindow, 9]) == [1, 1])
        // After A ran out, the B-only tail is not evidence either.
        let short = PagePlanner(configuration: configuration, bCount: 10, aTotal: 5, seed: 9)
        #expect(short.creditWindow == 3..<7)
        #expect(short.plan(offset: 7, size: 20).slots.allSatisfy { $0.team == .b })
    }

    /// Users who click every shown result alike, with no preference: crediting every slot
    /// hands A the wins of the A-only top slots; crediting the window does not.
    @Test func withoutPreferenceOnlyWindowCreditIsUnbiased() throws {
        let configuration = try InterleavingConfiguration(start: 3, mode: .teamDraft)
        var rng = SeededGenerator(seed: 77)
        var window = PreferenceOutcome(winsA: 0, winsB: 0, ties: 0)
        var everySlot = PreferenceOutcome(winsA: 0, winsB: 0, ties: 0)
        for _ in 0..<3_000 {
            let planner = PagePlanner(configuration: configuration, bCount: 50, aTotal: 500, seed: rng.next())
            let page = planner.plan(offset: 0, size: 10)
            let teams = page.slots.map(\.team)
            let clicked = page.slots.map(\.position).filter { _ in Double.random(in: 0..<1, using: &rng) < 0.2 }
            window.record(ImpressionCredit.outcome(
                ImpressionToken(experiment: "e", offset: 0, teams: teams, creditWindow: planner.creditWindow, nonce: 0), clickedPositions: clicked))
            everySlot.record(ImpressionCredit.outcome(
                ImpressionToken(experiment: "e", offset: 0, teams: teams, creditWindow: 0..<10, nonce: 0), clickedPositions: clicked))
        }
        #expect(window.pValue > 0.01, "window credit: \(window)")
        #expect(everySlot.pValue < 1e-6 && everySlot.winsA > everySlot.winsB, "every-slot credit: \(everySlot)")
    }
}
