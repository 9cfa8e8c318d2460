@testable import BraidClient
import Foundation
import Synchronization
import Testing

/// The reporter's queue, backoff and delivery rules, with a scripted `send` in place of the
/// gateway (`ClientStackTests` sends to a real one).
@Suite("Event reporter")
struct EventReporterTests {
    static func impression(_ n: Int) -> BraidEvent { .impression(impressionID: "id\(n)") }

    @Test("The queue holds at most its capacity, drops the oldest and counts them")
    func queueDropsOldest() {
        var queue = EventQueue(capacity: 3)
        for n in 0..<5 { queue.append(Self.impression(n)) }
        #expect(queue.count == 3 && queue.dropped == 2)
        #expect(queue.batch(limit: 10)?.events == [2, 3, 4].map(Self.impression))
    }

    @Test("Acknowledging a batch removes what is left of it, even after drops and appends")
    func acknowledgeAfterDrops() throws {
        var queue = EventQueue(capacity: 4)
        for n in 0..<4 { queue.append(Self.impression(n)) }
        let batch = try #require(queue.batch(limit: 3))  // 0, 1, 2 on their way
        queue.append(Self.impression(4))  // drops 0
        queue.append(Self.impression(5))  // drops 1
        queue.acknowledge(batch)
        #expect(queue.batch(limit: 10)?.events == [3, 4, 5].map(Self.impression))
        queue.remove(sequence: 4)
        #expect(queue.batch(limit: 10)?.events == [3, 5].map(Self.impression))
    }

    @Test("Backoff doubles its ceiling up to the maximum, with full jitter, and Retry-After is a floor")
    func backoff() {
        var backoff = Backoff(initial: .milliseconds(100), maximum: .milliseconds(700))
        #expect(backoff.delay(unit: 0.5) == .milliseconds(50))
        #expect(backoff.delay(unit: 0.5) == .milliseconds(100))
        #expect(backoff.delay(unit: 0.5) == .milliseconds(200))
        #expect(backoff.delay(unit: 1) == .milliseconds(700), "capped")
        #expect(backoff.delay(retryAfter: .seconds(3), unit: 0.5) == .seconds(3))
        backoff.reset()
        #expect(backoff.ceiling == .milliseconds(100))
    }

    @Test("A refusal names its event: the index comes from `events[i]` in the gateway's message")
    func refusedIndex() {
        let error = ResponseErrorMiddleware.error(
            status: 400, body: Array(#"{"error":{"code":"invalid_event","message":"events[12].impression_id: forged"}}"#.utf8), retryAfter: nil)
        #expect(error.code == "invalid_event" && error.refusedEventIndex == 12)
        #expect(BraidClientError(status: 400, code: "invalid_body", message: "events must hold 1 to 100 events").refusedEventIndex == nil)
        #expect(BraidClientError(status: 503, code: "events_unavailable", message: "events[3] …").refusedEventIndex == nil)
        let limited = ResponseErrorMiddleware.error(status: 429, body: Array("<html>".utf8), retryAfter: "7")
        #expect(limited.code == "http_429" && limited.retryAfter == .seconds(7) && limited.isRetryable)
    }

    @Test("A JWT's exp is read without verifying it; a token without one is kept")
    func jwtExpiry() {
        let payload = Data(#"{"sub":"u1","exp":2000000000}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(JWTClaims.expiry(of: "e30.\(payload).sig") == Date(timeIntervalSince1970: 2_000_000_000))
        #expect(JWTClaims.expiry(of: "not-a-jwt") == nil)
        #expect(RefreshingCredential.isStale(Date(timeIntervalSinceNow: 10), leeway: .seconds(30)))
        #expect(!RefreshingCredential.isStale(Date(timeIntervalSinceNow: 100), leeway: .seconds(30)))
    }

    /// A scripted gateway: answers each request from `answers` (then accepts), recording batches.
    final class ScriptedGateway: Sendable {
        private let state: Mutex<(answers: [BraidClientError?], batches: [[BraidEvent]])>
        init(_ answers: [BraidClientError?]) { state = Mutex((answers, [])) }
        var batches: [[BraidEvent]] { state.withLock { $0.batches } }

        func send(_ events: [BraidEvent]) throws(BraidClientError) {
            let answer: BraidClientError? = state.withLock { state in
                state.batches.append(events)
                return state.answers.isEmpty ? nil : state.answers.removeFirst()
            }
            if let answer { throw answer }
        }
    }

    static func reporter(_ gateway: ScriptedGateway, batchSize: Int = 100, capacity: Int = 1_000) -> EventReporter {
        var configuration = EventReporter.Configuration()
        configuration.batchSize = batchSize
        configuration.capacity = capacity
        configuration.flushInterval = .milliseconds(20)
        configuration.initialBackoff = .milliseconds(1)
        configuration.maximumBackoff = .milliseconds(5)
        return EventReporter(configuration: configuration) { events throws(BraidClientError) in try gateway.send(events) }
    }

    @Test("A refused event is removed and counted, the rest of its batch sent again; failures are retried")
    func refusalsAndRetries() async {
        let gateway = ScriptedGateway([
            BraidClientError(status: 503, code: "events_unavailable", message: "no acknowledgement"),
            BraidClientError(status: 400, code: "invalid_event", message: "events[1].impression_id: forged"),
            BraidClientError(status: 429, code: "rate_limited", message: "slow down", retryAfter: .zero),
        ])
        let reporter = Self.reporter(gateway)
        for n in 0..<3 { reporter.report(Self.impression(n)) }
        let running = Task { await reporter.run() }
        await reporter.flush()
        running.cancel()
        await running.value
        let all = [0, 1, 2].map(Self.impression)
        #expect(gateway.batches == [all, all, [0, 2].map(Self.impression), [0, 2].map(Self.impression)])
        let statistics = reporter.statistics
        #expect(statistics.sent == 2 && statistics.refused == 1 && statistics.failedAttempts == 2 && statistics.held == 0, "\(statistics)")
        #expect(statistics.lastRefusal?.refusedEventIndex == 1)
    }

    @Test("Too large a body halves the batch; a refusal naming no event refuses its batch instead of retrying forever")
    func oversizeAndUnnamedRefusal() async {
        let gateway = ScriptedGateway([
            BraidClientError(status: 413, code: "payload_too_large", message: "larger than 64 KiB"),
            BraidClientError(status: 400, code: "invalid_body", message: "not JSON"),
        ])
        let reporter = Self.reporter(gateway, batchSize: 4)
        for n in 0..<4 { reporter.report(Self.impression(n)) }
        let running = Task { await reporter.run() }
        await reporter.flush()
        running.cancel()
        await running.value
        #expect(gateway.batches.map(\.count) == [4, 2, 2], "\(gateway.batches)")
        #expect(reporter.statistics.refused == 2 && reporter.statistics.sent == 2)
    }

    @Test("Past its capacity the reporter drops the oldest events, counts them, and sends the newest")
    func capacity() async {
        let gateway = ScriptedGateway([])
        let reporter = Self.reporter(gateway, capacity: 5)
        for n in 0..<8 { reporter.report(Self.impression(n)) }
        #expect(reporter.statistics.dropped == 3 && reporter.statistics.held == 5)
        let running = Task { await reporter.run() }
        await reporter.flush()
        running.cancel()
        await running.value
        #expect(gateway.batches.flatMap { $0 } == (3..<8).map(Self.impression))
    }

    @Test("A cancelled reporter makes one last attempt at what it holds")
    func lastAttemptOnCancel() async {
        let gateway = ScriptedGateway([])
        var configuration = EventReporter.Configuration()
        configuration.flushInterval = .seconds(3_600)
        let reporter = EventReporter(configuration: configuration) { events throws(BraidClientError) in try gateway.send(events) }
        let running = Task { await reporter.run() }
        reporter.report(Self.impression(1))
        running.cancel()
        await running.value
        #expect(gateway.batches == [[Self.impression(1)]])
    }

    @Test("The recorder keeps what the app reported, for the app's tests")
    func recorder() {
        let recorder = EventRecorder()
        let reporting: any EventReporting = recorder
        reporting.report(.impression(impressionID: "a"))
        reporting.report(.click(impressionID: "a", position: 4))
        #expect(recorder.impressions == ["a"] && recorder.clicks.map(\.position) == [4])
        recorder.reset()
        #expect(recorder.events.isEmpty)
    }
}
