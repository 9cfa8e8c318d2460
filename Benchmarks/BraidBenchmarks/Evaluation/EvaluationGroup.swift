import BraidHarness
import Foundation

/// Sensitivity of team-draft interleaving against an A/B test on click-through, by simulation
/// over the demo corpus (20,000 recipes): `braid experiment simulate` with its defaults (the
/// model and every parameter are in the README, "How sensitive"). Prints the sessions each
/// method needs for 80 % power at α = 0.05 and their ratio, and the false-positive rates of
/// the sign test and of the A/B test over 1,000 experiments each with no preference; then the
/// sequential test of the interleaving preference (a look every 100 sessions up to its N_max,
/// 2,000 experiments per case): its false-positive rate under peeking and the fixed-horizon
/// test's, and its sessions to a decision at the planned margin and at twice it, over the
/// fixed-horizon size. Then the experiment planner's round trip (`braid experiment round-trip`):
/// 40,000 simulated users' events in the gateway's format fitted back, the worst relative error
/// over the fitted parameters; and `braid experiment plan` on those events, which reads the
/// written file as a team's export. Needs no server. The seed is BRAID_BENCH_EVALUATION_SEED
/// (default 1); other flags of the simulation can be passed in BRAID_BENCH_EVALUATION_ARGS.
struct EvaluationGroup {
    let context: BenchmarkContext

    /// The lines the simulation must print for the group to count.
    static let required = [
        ("RATIO evaluation.ab_sessions.over_interleaving ", "the simulation printed no sessions ratio"),
        ("RATIO evaluation.null_false_positive_rate ", "the simulation printed no false-positive rate"),
        ("RATIO evaluation.peeking_fpr.fixed ", "the simulation printed no peeking false-positive rate of the fixed test"),
        ("RATIO evaluation.peeking_fpr.sequential ", "the simulation printed no peeking false-positive rate of the sequential test"),
        ("RATIO evaluation.sequential_sessions.over_fixed ", "the simulation printed no sequential sessions ratio"),
        ("RATIO evaluation.sequential_sessions.over_fixed_2x ", "the simulation printed no sequential sessions ratio at twice the margin"),
        ("RATIO evaluation.calibration_error ", "the planner's round trip printed no calibration error"),
    ]

    func run() async throws {
        let corpus = context.run.file("evaluation-corpus.sqlite")
        try await context.seed(corpus)
        let (status, output) = try await ChildProcess.run(
            context.braid,
            ["experiment", "simulate", "--db", corpus.path, "--seed", context.settings.evaluationSeed] + context.settings.evaluationArguments,
            timeout: .seconds(7_200))
        guard status == 0 else { throw BenchmarkError("braid experiment simulate failed: \(output.suffix(2_000))") }
        let events = context.run.file("evaluation-round-trip-events.jsonl")
        let (roundTripStatus, roundTrip) = try await ChildProcess.run(
            context.braid,
            ["experiment", "round-trip", "--seed", context.settings.evaluationSeed, "--write-events", events.path],
            timeout: .seconds(3_600))
        guard roundTripStatus == 0 else { throw BenchmarkError("braid experiment round-trip failed: \(roundTrip.suffix(2_000))") }
        let (planStatus, plan) = try await ChildProcess.run(
            context.braid, ["experiment", "plan", "--events", events.path, "--db", corpus.path, "--seed", context.settings.evaluationSeed],
            timeout: .seconds(3_600))
        guard planStatus == 0 else { throw BenchmarkError("braid experiment plan failed: \(plan.suffix(2_000))") }
        let text = [output, roundTrip, plan].map { $0.trimmingCharacters(in: .newlines) }.joined(separator: "\n")
        Report.line(text)
        try Self.check(text)
    }

    /// Throws unless the simulation's output has every ``required`` line.
    static func check(_ output: String) throws {
        let lines = output.split(whereSeparator: \.isNewline)
        for (prefix, failure) in required where !lines.contains(where: { $0.hasPrefix(prefix) }) {
            throw BenchmarkError(failure)
        }
    }
}
