/// Tells "a dependency is down" from "this request fails". Transient failures of one
/// dependency in a row, with no success of any request in between, are a reason to check
/// the dependency itself (``MessageProcessor/probe(_:)``): if it does not answer either, the
/// worker pauses instead of burning the backlog's attempts; if it answers, the failures are
/// the requests' own and they keep their retries and, at the end, the dead-letter topic.
///
/// Pure, so the rule is unit-tested without a worker (`OutageDetectorTests`).
struct OutageDetector: Sendable {
    /// Failures in a row that make the worker probe; 0 never does.
    let threshold: Int
    private var streaks: [ProcessingFailure.Dependency: Int] = [:]

    init(threshold: Int) {
        self.threshold = max(threshold, 0)
    }

    /// A request succeeded: whatever it used answers.
    mutating func succeeded() {
        streaks.removeAll()
    }

    /// Records a transient failure of `dependency`; true when it is time to probe it. The
    /// count then starts over, so concurrent failures trigger one probe, not one each.
    mutating func failed(_ dependency: ProcessingFailure.Dependency) -> Bool {
        guard threshold > 0 else { return false }
        let streak = streaks[dependency, default: 0] + 1
        guard streak >= threshold else {
            streaks[dependency] = streak
            return false
        }
        streaks[dependency] = 0
        return true
    }
}
