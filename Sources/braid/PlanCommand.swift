import ArgumentParser
import BraidCore
import Foundation

/// `braid plan`: the interleaving plan of one page, as JSON — for people debugging a page
/// and for tests. Bad flags exit with status 2 (see ``Braid/main()``).
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Print the interleaving plan of one page as JSON.")

    @Option(help: "Global 0-based position where interleaving begins.") var start = 0
    @Option(help: "Repeating cycle of teams, e.g. AB, AAB.") var pattern = "AB"
    @Option(name: .customLong("b-count"), help: "Documents in the secondary ranking B.") var bCount: Int
    @Option(name: .customLong("max-docs"), help: "Most B documents placed (default: all).") var maxDocs: Int?
    @Option(name: .customLong("a-total"), help: "Live results excluding B (T).") var aTotal: Int
    @Option(help: "Global 0-based position of the page's first slot.") var offset: Int
    @Option(help: "Page size.") var size: Int
    @Option(help: "pattern or team_draft.") var mode = "pattern"
    @Option(help: "Team-draft seed.") var seed: UInt64 = 0

    func validate() throws {
        guard bCount >= 0 else { throw ValidationError("--b-count must not be negative") }
        guard aTotal >= 0 else { throw ValidationError("--a-total must not be negative") }
        guard offset >= 0 else { throw ValidationError("--offset must not be negative") }
        guard (1...10_000).contains(size) else { throw ValidationError("--size must be 1 to 10000") }
        guard InterleavingConfiguration.Mode(rawValue: mode) != nil else { throw ValidationError("--mode must be pattern or team_draft") }
        do {
            _ = try InterleavingConfiguration(start: start, maxDocs: maxDocs, pattern: InterleavingConfiguration.parsePattern(pattern))
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func run() throws {
        // validate() has checked every input this can throw on.
        let configuration = try InterleavingConfiguration(
            start: start, maxDocs: maxDocs, pattern: InterleavingConfiguration.parsePattern(pattern),
            mode: InterleavingConfiguration.Mode(rawValue: mode) ?? .pattern)
        let planner = PagePlanner(configuration: configuration, bCount: bCount, aTotal: aTotal, seed: seed)
        let plan = planner.plan(offset: offset, size: size)
        let output = PlanOutput(
            slots: plan.slots,
            aRange: .init(from: plan.aRange.lowerBound, size: plan.aRange.count),
            bRange: .init(from: plan.bRange.lowerBound, size: plan.bRange.count),
            end: plan.end ?? 0)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(output), as: UTF8.self))
    }
}

private struct PlanOutput: Encodable {
    struct Range: Encodable { var from: Int; var size: Int }
    var slots: [PlannedSlot]
    var aRange: Range
    var bRange: Range
    var end: Int

    enum CodingKeys: String, CodingKey {
        case slots, end
        case aRange = "a_range"
        case bRange = "b_range"
    }
}
