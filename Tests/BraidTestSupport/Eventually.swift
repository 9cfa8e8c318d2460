import Testing

/// Waits until `condition` holds, checking it every `interval`; past `timeout` the test fails
/// naming `what`. The one way the tests wait for another task, process or server to catch up.
/// Generous by default: the fast tier runs everything at once on a shared machine, where a
/// task can wait tens of seconds for a thread.
public func eventually(
    _ what: Comment, within timeout: Duration = .seconds(120), every interval: Duration = .milliseconds(20),
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while !(try await condition()) {
        try #require(ContinuousClock.now < deadline, "not within \(timeout): \(what)", sourceLocation: sourceLocation)
        try await Task.sleep(for: interval)
    }
}
