import Testing

/// Marks a suite (or test) whose work is seconds to minutes of pure computation (simulations,
/// fits over tens of thousands of users): such tests run one at a time, across every suite and
/// module of the test process. The fast tier runs in parallel on two cores; several of these at
/// once would leave the others' bounded waits (a child stopped within 5 s, a deadline within
/// 30 s) without a core, and those tests would fail for it.
public struct ComputeHeavyTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let held = try await Self.gate.run(function)
        TierTimings.record(held, tier: "compute-heavy", test: test)
    }

    static let gate = OneAtATime()
}

extension Trait where Self == ComputeHeavyTrait {
    /// Pure computation heavy enough to starve other tests: one such test at a time.
    public static var computeHeavy: Self { ComputeHeavyTrait() }
}
