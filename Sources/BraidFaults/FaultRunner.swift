import Foundation
import BraidContracts

/// Every scenario `make faults` runs, in order. A new scenario is a type conforming to
/// ``FaultScenario`` added here.
public enum FaultCatalog {
    public static let scenarios: [any FaultScenario] = [
        BrokerFreeze(), WorkerKill(), RedisRestart(), Hostile(), RollingRestart(), ComponentRefresh(), RedisFull(), Reshard(), PrimaryKill(),
        PartitionGatewayRedis(), PartitionWorkerRedis(), PartitionWorkerBroker(), BlackholeRedis(), ClockSkew(),
    ]

    /// Scenarios that run only when named: `rolling-upgrade` needs the previous release's binary.
    public static let namedOnly: [any FaultScenario] = [RollingUpgrade()]

    public static var names: [String] { scenarios.map(\.name) }

    /// The scenarios `only` selects: all of ``scenarios`` for `all`, else the one of that name
    /// (``namedOnly`` too); nil when there is none of that name.
    public static func select(_ only: String, from scenarios: [any FaultScenario] = scenarios) -> [any FaultScenario]? {
        if only == "all" { return scenarios }
        let chosen = (scenarios + namedOnly).filter { $0.name == only }
        return chosen.isEmpty ? nil : chosen
    }
}

/// Runs scenarios one after the other and prints their lines as each ends.
public enum FaultRunner {
    /// Runs `scenarios` on `stack`; prints each one's lines (`<tag> <scenario> …`) through
    /// `print` and its diagnostics through `diagnose`. A scenario that throws fails with the
    /// error as its reason; the rest still run (unless the task is cancelled). Returns the
    /// names of the scenarios that failed.
    public static func run(
        _ scenarios: [any FaultScenario], on stack: FaultStack, tag: String = "FAULT", print: (String) -> Void,
        diagnose: (String) -> Void = { _ in }
    ) async -> [String] {
        var failed: [String] = []
        for scenario in scenarios {
            if Task.isCancelled { break }
            let result: FaultResult
            do {
                result = try await scenario.run(on: stack)
            } catch {
                if Task.isCancelled { break }
                var thrown = FaultResult()
                thrown.verdict(false, "\(error)")
                result = thrown
            }
            result.printed(scenario: scenario.name, tag: tag).forEach(print)
            result.diagnostics.forEach(diagnose)
            if !result.passed { failed.append(scenario.name) }
        }
        return failed
    }

    /// `machine: <cores> cores, <GiB> GiB, <kernel>`, the first line of a run.
    public static func machineLine() -> String {
        let memory = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("MemTotal:") }?
            .split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
        var names = utsname()
        uname(&names)
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let gib = (memory ?? 0) / 1024 / 1024
        return "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(gib) GiB, \(text(names.sysname)) \(text(names.release))"
    }
}
