import BraidHarness

extension ChildProcess {
    /// Waits for the exit like ``ChildProcess/waitForExit(timeout:)`` but polls every 2 ms
    /// rather than every 20, for runs that are timed from the outside (kcat), where the wait's
    /// granularity is part of the figure. Nil when `timeout` passes first.
    func waitForExitClosely(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if hasExited { return await waitForExit(timeout: .zero) }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }
}
