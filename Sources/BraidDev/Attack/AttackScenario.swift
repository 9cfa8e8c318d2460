import Foundation

/// One class of attack on a running gateway and worker: it tries the attack and reports what
/// happened as a figure and a verdict. `braid-dev attack` runs a list of them
/// (``AttackSuite/scenarios``); a new class is a new type in that list.
protocol AttackScenario: Sendable {
    /// `ATTACK <name> …`: short, kebab-case.
    var name: String { get }
    func run(against target: AttackTarget) async throws -> AttackVerdict
}

/// What a scenario found: every probe that should have been refused was (`passed`), with
/// the figure that shows it, and what went wrong otherwise.
struct AttackVerdict: Sendable {
    var passed: Bool
    var figure: String
    var failures: [String]

    /// Passed when no check failed; `figure` summarises them.
    init(figure: String, failures: [String]) {
        self.passed = failures.isEmpty
        self.figure = figure
        self.failures = failures
    }
}

/// Collects the checks of one scenario.
struct AttackChecks: Sendable {
    private(set) var failures: [String] = []
    private(set) var count = 0

    /// Records `condition`; `what` describes the failure.
    mutating func expect(_ condition: Bool, _ what: @autoclosure () -> String) {
        count += 1
        if !condition { failures.append(what()) }
    }

    var passed: Int { count - failures.count }

    func verdict(_ figure: String) -> AttackVerdict {
        AttackVerdict(figure: figure, failures: failures)
    }
}
