import BraidKafka
@testable import BraidWorker
import Synchronization
import Testing

/// When failures mean "the dependency is down" (probe it, pause) rather than "this request
/// fails" (retry, then dead-letter), and how held requests are released. No sleeping.
@Suite("Outage detection")
struct OutageTests {
    @Test func failuresInARowOfOneDependencyCallForOneProbe() {
        var detector = OutageDetector(threshold: 3)
        let probes = (0..<6).map { _ in detector.failed(.searchSource) }
        // The third failure in a row; then counting starts over, so concurrent failures do
        // not each trigger a probe.
        #expect(probes == [false, false, true, false, false, true])
    }

    @Test func aSuccessInBetweenMeansTheRequestsFailOnTheirOwn() {
        var detector = OutageDetector(threshold: 3)
        var probes: [Bool] = []
        for _ in 0..<10 {
            probes.append(detector.failed(.searchSource))
            probes.append(detector.failed(.searchSource))
            detector.succeeded()
        }
        #expect(!probes.contains(true))
    }

    @Test func dependenciesAreCountedApartAndZeroNeverProbes() {
        var detector = OutageDetector(threshold: 2)
        let probes = [detector.failed(.redis), detector.failed(.searchSource), detector.failed(.redis)]
        #expect(probes == [false, false, true])
        var off = OutageDetector(threshold: 0)
        #expect(!(0..<100).map { _ in off.failed(.redis) }.contains(true))
    }

    static let p0 = TopicPartition(topic: "t", partition: 0)
    static let p1 = TopicPartition(topic: "t", partition: 1)

    @Test func heldRequestsGoOnWhenTheOutageEnds() async throws {
        let gate = PauseGate()
        #expect(await gate.wait(partition: Self.p0, stillCurrent: { true }) == .resumed, "no outage: no wait")
        #expect(gate.begin(.searchSource))
        #expect(!gate.begin(.redis), "one outage at a time")
        let held = Task { await gate.wait(partition: Self.p0, stillCurrent: { true }) }
        while gate.waiting == 0 { await Task.yield() }
        gate.end()
        #expect(await held.value == .resumed)
        #expect(gate.outage == nil)
    }

    @Test func aRevocationReleasesOnlyItsPartitionsRequests() async throws {
        let gate = PauseGate()
        #expect(gate.begin(.redis))
        let revoked = Task { await gate.wait(partition: Self.p0, stillCurrent: { true }) }
        let kept = Task { await gate.wait(partition: Self.p1, stillCurrent: { true }) }
        while gate.waiting < 2 { await Task.yield() }
        gate.revoke([Self.p0])
        #expect(await revoked.value == .revoked)
        #expect(gate.waiting == 1)
        // A request whose partition is already being revoked does not start waiting.
        #expect(await gate.wait(partition: Self.p0, stillCurrent: { false }) == .revoked)
        gate.stop()
        #expect(await kept.value == .stopping)
        #expect(await gate.wait(partition: Self.p1, stillCurrent: { true }) == .stopping)
        #expect(!gate.begin(.redis), "no outage begins while stopping")
    }

    /// The worker's service cancelled (not shut down gracefully) during an outage: its held
    /// requests give up, or the worker could never return.
    @Test func aCancelledWaitGivesUp() async throws {
        let gate = PauseGate()
        #expect(gate.begin(.searchSource))
        let outcome = Mutex<PauseGate.Outcome?>(nil)
        let held = Task {
            let result = await gate.wait(partition: Self.p0, stillCurrent: { true })
            outcome.withLock { $0 = result }
        }
        let kept = Task { await gate.wait(partition: Self.p1, stillCurrent: { true }) }
        while gate.waiting < 2 { await Task.yield() }
        held.cancel()
        // Polled, not awaited: a wait that ignored cancellation would hang the test run.
        let deadline = ContinuousClock.now + .seconds(60)
        while outcome.withLock({ $0 }) == nil, ContinuousClock.now < deadline { await Task.yield() }
        #expect(outcome.withLock { $0 } == .stopping)
        #expect(gate.waiting == 1, "only the cancelled request stopped waiting")
        gate.end()
        #expect(await kept.value == .resumed)
        // Cancelled before it would wait: it does not start.
        #expect(gate.begin(.redis))
        let late = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await gate.wait(partition: Self.p0, stillCurrent: { true })
        }
        let lateOutcome = Mutex<PauseGate.Outcome?>(nil)
        Task { let result = await late.value; lateOutcome.withLock { $0 = result } }
        let lateDeadline = ContinuousClock.now + .seconds(60)
        while lateOutcome.withLock({ $0 }) == nil, ContinuousClock.now < lateDeadline { await Task.yield() }
        #expect(lateOutcome.withLock { $0 } == .stopping)
        gate.end()
    }
}
