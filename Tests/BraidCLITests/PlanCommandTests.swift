import BraidCore
import BraidTestSupport
import Foundation
import Testing

@Suite("braid plan")
struct PlanCommandTests {
    struct Output: Decodable {
        struct Range: Decodable { let from: Int; let size: Int }
        let slots: [PlannedSlot]
        let a_range: Range
        let b_range: Range
        let end: Int
    }

    @Test func printsThePlanOfOnePageAsJSON() throws {
        let result = try BraidBinary.run(["plan", "--start", "0", "--pattern", "AB", "--b-count", "3", "--a-total", "4", "--offset", "2", "--size", "4"])
        #expect(result.status == 0, "\(result.stderr)")
        let output = try JSONDecoder().decode(Output.self, from: Data(result.stdout.utf8))
        #expect(output.slots == [
            PlannedSlot(position: 2, team: .a, index: 1), PlannedSlot(position: 3, team: .b, index: 1),
            PlannedSlot(position: 4, team: .a, index: 2), PlannedSlot(position: 5, team: .b, index: 2),
        ])
        #expect(output.a_range.from == 1 && output.a_range.size == 2)
        #expect(output.b_range.from == 1 && output.b_range.size == 2)
        #expect(output.end == 7)
    }

    @Test func agreesWithTheLibraryInTeamDraftMode() throws {
        let result = try BraidBinary.run(["plan", "--start", "1", "--b-count", "20", "--a-total", "50", "--offset", "5", "--size", "10", "--mode", "team_draft", "--seed", "99"])
        #expect(result.status == 0, "\(result.stderr)")
        let output = try JSONDecoder().decode(Output.self, from: Data(result.stdout.utf8))
        let planner = PagePlanner(configuration: try InterleavingConfiguration(start: 1, mode: .teamDraft), bCount: 20, aTotal: 50, seed: 99)
        #expect(output.slots == planner.plan(offset: 5, size: 10).slots)
    }

    @Test(arguments: [
        ["plan", "--b-count", "3"],
        ["plan", "--pattern", "AX", "--b-count", "3", "--a-total", "4", "--offset", "0", "--size", "4"],
        ["plan", "--pattern", "AA", "--b-count", "3", "--a-total", "4", "--offset", "0", "--size", "4"],
        ["plan", "--b-count", "3", "--a-total", "4", "--offset", "0", "--size", "0"],
        ["plan", "--b-count", "-1", "--a-total", "4", "--offset", "0", "--size", "4"],
        ["plan", "--b-count", "3", "--a-total", "4", "--offset", "0", "--size", "4", "--mode", "random"],
        ["plan", "--b-count", "three", "--a-total", "4", "--offset", "0", "--size", "4"],
        ["plan", "--no-such-flag"],
    ])
    func badFlagsAreUsageErrorsWithExitCode2(arguments: [String]) throws {
        let result = try BraidBinary.run(arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("Error:"))
        #expect(result.stdout.isEmpty)
    }
}
