import BraidContracts
import BraidCore
import BraidObservability
import BraidPrecompute
import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// Refreshes stored components before their TTL runs out (``EarlyRefresh``), so under steady
/// traffic a popular component is never served from a live read because it expired.
///
/// A page that served stored content calls ``consider(_:expiresAt:now:)``: no I/O, no waiting.
/// When the draw says so, the component's request goes to this service, which publishes it
/// through the ``DeduplicatingPublisher`` under a refresh marker of its own that lives for the
/// refresh window, so across the fleet each component is requested at most once per window.
public final class ComponentRefreshAhead: Service, Sendable {
    public let policy: EarlyRefresh
    private let requests: DeduplicatingPublisher
    private let logger: Logger
    /// Components queued or being published by this process (each once).
    private let queued = Mutex<Set<PrecomputeRequest.ComponentTarget>>([])
    private let stream: AsyncStream<PrecomputeRequest.ComponentTarget>
    private let continuation: AsyncStream<PrecomputeRequest.ComponentTarget>.Continuation

    public init(policy: EarlyRefresh, requests: DeduplicatingPublisher, logger: Logger = Logger(label: "braid.gateway.refresh-ahead")) {
        self.policy = policy
        self.requests = requests
        self.logger = logger
        // Unbounded, yet bounded by `queued`: a component is in it at most once.
        (stream, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// A page served `component`'s stored content, which expires at `expiresAt`.
    func consider(_ component: PrecomputeRequest.ComponentTarget, expiresAt: Date, now: Date) {
        guard policy.isDue(timeToExpiry: expiresAt.timeIntervalSince(now), unit: Double.random(in: .leastNonzeroMagnitude...1)) else { return }
        guard queued.withLock({ $0.insert(component).inserted }) else { return }
        continuation.yield(component)
    }

    /// Publishes the refreshes pages asked for, one at a time, until shut down.
    public func run() async throws {
        for await component in stream.cancelOnGracefulShutdown() {
            do {
                let marker = requests.keys.componentRefreshMarker(feed: component.feed, type: component.type, scope: component.scope)
                if try await requests.publish(
                    PrecomputeRequest(body: .component(component)), reason: "refresh_ahead", marker: marker, window: policy.window)
                {
                    Counter(.gatewayComponentRequests, dimensions: [("reason", "refresh_ahead")]).increment()
                }
            } catch {
                logger.warning("could not request a component refresh", metadata: ["component": "\(component.type.rawValue)", "error": "\(error)"])
            }
            _ = queued.withLock { $0.remove(component) }
        }
    }
}
