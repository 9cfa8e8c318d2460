import Foundation
import Testing

/// Marks a suite (or test) as needing real servers: the integration tier.
///
/// In its scope the servers are up (``TestServers/ensure()``), and integration tests run one
/// at a time, across every suite and module of the test process: the local broker can leave
/// consumer groups unassigned when many tests join and leave groups at the same instant, and
/// two cores are not enough to keep timing-sensitive tests honest in parallel. Tests without
/// the trait (the fast tier) run in parallel beside them.
///
/// With `BRAID_TEST_TIER=fast` the integration tier is cancelled instead, and nothing starts:
/// `BRAID_TEST_TIER=fast swift test` runs the fast tier alone.
public struct IntegrationTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if ProcessInfo.processInfo.environment["BRAID_TEST_TIER"] == "fast" {
            try Test.cancel("needs real servers; BRAID_TEST_TIER=fast runs the fast tier only")
        }
        try await TestServers.ensure()
        let held = try await Self.gate.run(function)
        TierTimings.record(held, tier: "integration", test: test)
    }

    static let gate = OneAtATime()
}

extension Trait where Self == IntegrationTrait {
    /// Needs real servers; runs one at a time with the rest of the integration tier.
    public static var integration: Self { IntegrationTrait() }
}
