import Foundation

/// One fault scenario of `make faults`: real processes on loopback, one fault injected, the
/// outcome measured and checked.
public protocol FaultScenario: Sendable {
    /// What `braid-dev faults <name>` takes and every line of the scenario carries.
    var name: String { get }

    /// Runs the scenario on `stack` and returns its figures and verdict. Thrown errors are
    /// failures to set the scenario up or to measure it (the runner reports them as a FAIL).
    func run(on stack: FaultStack) async throws -> FaultResult
}

/// The figures a scenario measured, in the order it measured them, and its verdict.
public struct FaultResult: Sendable, Equatable {
    public enum Line: Sendable, Equatable {
        /// `<tag> <scenario> <name> <value>`.
        case figure(String, String)
        /// A line of its own, printed as is (the `reason:` breakdown of `hostile`).
        case note(String)
    }

    public private(set) var lines: [Line] = []
    /// What a failed scenario says about why, for stderr (not part of the printed lines).
    public private(set) var diagnostics: [String] = []
    /// Why the scenario failed; nil when it passed.
    public private(set) var failure: String?
    private var decided = false

    public init() {}

    /// Records a figure. Values are printed as they are: spaces would split the line, so
    /// they are replaced by `_`.
    public mutating func figure(_ name: String, _ value: some CustomStringConvertible) {
        lines.append(.figure(name, value.description.replacingOccurrences(of: " ", with: "_")))
    }

    public mutating func note(_ line: String) {
        lines.append(.note(line))
    }

    public mutating func diagnose(_ line: String) {
        diagnostics.append(line)
    }

    /// The verdict: PASS when `passed`, else FAIL with `reason`.
    public mutating func verdict(_ passed: Bool, _ reason: @autoclosure () -> String) {
        precondition(!decided, "a scenario decides its verdict once")
        decided = true
        failure = passed ? nil : reason()
    }

    public var passed: Bool { decided && failure == nil }

    /// The value of the figure `name`, as printed.
    public func figure(_ name: String) -> String? {
        for case .figure(name, let value) in lines { return value }
        return nil
    }

    /// The lines `make faults` prints for scenario `scenario`: every figure, then the verdict.
    public func printed(scenario: String, tag: String = "FAULT") -> [String] {
        let body = lines.map { line in
            switch line {
            case .figure(let name, let value): "\(tag) \(scenario) \(name) \(value)"
            case .note(let text): text
            }
        }
        guard decided else { return body + ["\(tag) \(scenario) FAIL: no verdict"] }
        return body + [failure.map { "\(tag) \(scenario) FAIL: \($0)" } ?? "\(tag) \(scenario) PASS"]
    }
}
