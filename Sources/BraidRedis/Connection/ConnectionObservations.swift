import NIOSSL
import Synchronization

/// What one connection saw before it failed: its first inbound bytes and the errors its
/// pipeline raised. Written on the event loop, read by the connecting task to explain a
/// failed set-up (``TLSFailureExplanation``).
final class ConnectionObservations: Sendable {
    struct Snapshot: Sendable {
        var firstBytes: [UInt8] = []
        var errors: [String] = []
        /// NIOSSL verified the chain but the certificate does not name the server.
        var nameMismatch = false
    }

    private let state = Mutex(Snapshot())

    func record(firstBytes: [UInt8]) {
        state.withLock { $0.firstBytes = firstBytes }
    }

    func record(error: any Error) {
        let mismatch = (error as? NIOSSLExtraError) == .failedToValidateHostname
        let text = String(describing: error)
        state.withLock { state in
            if state.errors.count < 8 { state.errors.append(text) }
            if mismatch { state.nameMismatch = true }
        }
    }

    var snapshot: Snapshot { state.withLock { $0 } }
}
