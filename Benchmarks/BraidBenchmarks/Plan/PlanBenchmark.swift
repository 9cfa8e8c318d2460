import BraidCore

/// Time per plan at offset 0 vs offset 10⁹ (page size 30): the planner is closed-form, so
/// the ratio should be about 1; a planner that walked from 0 would make it tiny.
enum PlanBenchmark {
    static func run() {
        let configuration = try! InterleavingConfiguration(start: 3, maxDocs: nil, pattern: [.a, .a, .b], mode: .pattern)
        let planner = PagePlanner(configuration: configuration, bCount: Int(Int32.max), aTotal: nil)
        let draft = PagePlanner(
            configuration: try! InterleavingConfiguration(start: 3, mode: .teamDraft), bCount: Int(Int32.max), aTotal: nil, seed: 7)
        let size = 30
        let iterations = 20_000
        func median(offset: Int, planner: PagePlanner) -> Double {
            var rounds: [Double] = []
            var sink = 0
            for _ in 0..<7 {
                let started = ContinuousClock.now
                for i in 0..<iterations {
                    let plan = planner.plan(offset: offset + (i & 7), size: size)
                    sink &+= plan.aRange.lowerBound &+ plan.slots.count
                }
                let elapsed = ContinuousClock.now - started
                rounds.append(Double(elapsed.components.attoseconds) / 1e9 + Double(elapsed.components.seconds) * 1e9)
            }
            precondition(sink != 42, "keeps the optimiser from dropping the loop")
            return rounds.sorted()[rounds.count / 2] / Double(iterations)
        }
        let near = median(offset: 0, planner: planner)
        let far = median(offset: 1_000_000_000, planner: planner)
        let draftFar = median(offset: 1_000_000_000, planner: draft)
        Report.figure("plan.ns_per_plan.offset0", format(near))
        Report.figure("plan.ns_per_plan.offset1e9", format(far))
        Report.figure("plan.ns_per_slot", format(far / Double(size)))
        Report.figure("plan.team_draft.ns_per_slot", format(draftFar / Double(size)))
        Report.ratio("plan.offset0_over_offset1e9", format(near / far))
    }

    /// Three decimals at most, without trailing zeros (`184.0`, `5.667`).
    static func format(_ value: Double) -> String {
        String(Double((value * 1000).rounded()) / 1000)
    }
}
