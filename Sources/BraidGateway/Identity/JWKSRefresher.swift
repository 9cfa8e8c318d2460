import ServiceLifecycle

/// Fetches the JWKS at start and every `interval` after (sooner, every `retry`, while it
/// fails), until graceful shutdown.
public struct JWKSRefresher: Service {
    let keys: JWTKeySet
    let interval: Duration
    let retry: Duration

    public init(keys: JWTKeySet, interval: Duration, retry: Duration = .seconds(5)) {
        self.keys = keys
        self.interval = interval
        self.retry = min(retry, interval)
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let fetched = await keys.refresh()
                try await Task.sleep(for: fetched ? interval : retry)
            }
        }
    }
}
