@testable import BraidKafka
import Dispatch
import Foundation
import Synchronization
import Testing

/// The handle's guard: a call that blocks (a commit waiting for the broker) never makes
/// another call wait, and destroying waits for calls in use. No broker needed: nothing here
/// talks to one.
@Suite("librdkafka handle")
struct RDKafkaHandleTests {
    static func handle() throws -> RDKafkaHandle {
        try RDKafkaHandle(.consumer, properties: ["bootstrap.servers": "127.0.0.1:9", "group.id": "braid-handle-test"], context: nil)
    }

    final class Flags: Sendable {
        let state = Mutex<[String]>([])
        func record(_ event: String) { state.withLock { $0.append(event) } }
        var events: [String] { state.withLock { $0 } }
    }

    @Test func aBlockingCallDoesNotHoldUpOtherCallsAndDestroyWaitsForIt() async throws {
        let handle = try Self.handle()
        let flags = Flags()
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // A "commit" that blocks until released (bounded, so a regression fails, not hangs; a
        // minute, because in the parallel fast tier this task may wait seconds for a thread).
        let blocking = Thread {
            _ = try? handle.withPointer { _ in
                inside.signal()
                _ = release.wait(timeout: .now() + 60)
                flags.record("blocking call returned")
            }
        }
        blocking.start()
        #expect(inside.wait(timeout: .now() + 10) == .success)

        // Another call meanwhile (an offset store from the cooperative pool) goes straight through.
        let answered = try handle.withPointer { _ in "answered" }
        flags.record(answered)

        // Destroying waits for the blocking call to return.
        let destroyed = Thread {
            handle.destroy()
            flags.record("destroyed")
        }
        destroyed.start()
        try await Task.sleep(for: .milliseconds(100))
        #expect(!flags.events.contains("destroyed"))
        release.signal()
        let deadline = ContinuousClock.now + .seconds(60)
        while !flags.events.contains("destroyed"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(flags.events == ["answered", "blocking call returned", "destroyed"])
        #expect(throws: KafkaError.self) { try handle.withPointer { _ in () } }
    }
}
