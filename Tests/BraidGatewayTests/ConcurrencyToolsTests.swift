@testable import BraidGateway
import BraidTestSupport
import Synchronization
import Testing

@Suite("Single flight")
struct SingleFlightTests {
    struct Failure: Error, Equatable {}

    final class Counter: Sendable {
        private let count = Atomic(0)
        func increment() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    /// Holds every waiter (however many) until the test opens it; stays open afterwards.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    if !state.open { state.waiters.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }

        var isOpen: Bool { state.withLock { $0.open } }

        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Waits until `count` callers have joined the computation under way (bounded: a broken
    /// single flight fails the test instead of hanging it).
    static func waitUntilJoined<K, V>(_ flights: SingleFlight<K, V>, _ count: Int) async throws {
        try await eventually("\(count) callers joined", within: .seconds(60), every: .milliseconds(1)) { await flights.joined >= count }
    }

    @Test func concurrentCallersOfOneKeyShareOneComputationAndItsResult() async throws {
        let flights = SingleFlight<String, Int>()
        let runs = Counter()
        let gate = Gate()
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await flights.run("curry") {
                        runs.increment()
                        await gate.wait()
                        return index
                    }
                }
            }
            // Every caller is either the one computing or joined to it before the gate opens.
            try await Self.waitUntilJoined(flights, 19)
            gate.open()
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(runs.value == 1)
        #expect(Set(results).count == 1)
        #expect(await flights.pendingCount == 0)
        // Finished: the next call computes again, and another key never waits on this one.
        #expect(try await flights.run("curry") { 7 } == 7)
        #expect(try await flights.run("rice") { 8 } == 8)
    }

    @Test func everyJoinedCallerGetsTheComputationsError() async throws {
        let flights = SingleFlight<String, Int>()
        let gate = Gate()
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do {
                        _ = try await flights.run("k") {
                            await gate.wait()
                            throw Failure()
                        }
                        return false
                    } catch {
                        return error is Failure
                    }
                }
            }
            try? await Self.waitUntilJoined(flights, 4)  // a failure to join is recorded; the gate opens anyway
            gate.open()
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(failures == 5)
    }
}

@Suite("Deadline")
struct DeadlineTests {
    @Test func theResultWhenTheOperationFinishesFirst() async throws {
        #expect(try await Deadline.run(timeout: .seconds(30)) { 42 } == 42)
        await #expect(throws: SingleFlightTests.Failure.self) {
            try await Deadline.run(timeout: .seconds(30)) { throw SingleFlightTests.Failure() }
        }
    }

    @Test func theDeadlineDoesNotWaitForAnOperationThatIgnoresCancellation() async throws {
        // The operation ignores cancellation and finishes only when its gate opens, 60 s on
        // (far beyond any wait for a thread in the parallel fast tier): the caller must have its
        // answer at the 50 ms deadline, while it still runs.
        let gate = SingleFlightTests.Gate()
        let finished = SingleFlightTests.Counter()
        let opener = Task {
            try await Task.sleep(for: .seconds(60))
            gate.open()
        }
        defer { opener.cancel() }
        await #expect(throws: DeadlineExceeded.self) {
            try await Deadline.run(timeout: .milliseconds(50)) {
                await gate.wait()
                finished.increment()
            }
        }
        #expect(finished.value == 0)
        gate.open()
    }

    @Test func cancellingTheCallerEndsTheWait() async throws {
        let gate = SingleFlightTests.Gate()
        let waiting = Task { try await Deadline.run(timeout: .seconds(10)) { await gate.wait() } }
        waiting.cancel()
        // Cancellation, not the deadline 10 s later.
        await #expect(throws: CancellationError.self) { try await waiting.value }
        gate.open()
    }

    @Test func runEachGivesEveryResultInOrderAndTheDeadlineToThoseStillRunning() async throws {
        // Two finish, one throws, one ignores cancellation until its gate opens 120 s on: the
        // caller has all four at the 100 ms deadline, with the gate still shut. No clock is
        // read: the fast tier runs in parallel on two cores, where CPU-bound neighbours have
        // held every task off its thread for 24 s; a runEach that waited for the gate would
        // return after it opened, and fail.
        let gate = SingleFlightTests.Gate()
        let opener = Task {
            try await Task.sleep(for: .seconds(120))
            gate.open()
        }
        defer { opener.cancel() }
        let operations: [@Sendable () async throws -> Int] = [
            { 1 },
            { await gate.wait(); return 2 },
            { throw SingleFlightTests.Failure() },
            { try await Task.sleep(for: .milliseconds(5)); return 4 },
        ]
        let results = await Deadline.runEach(timeout: .milliseconds(100), operations)
        #expect(!gate.isOpen, "runEach waited for the operation that ignores cancellation")
        #expect(results.count == 4)
        #expect(try results[0].get() == 1)
        #expect(throws: DeadlineExceeded.self) { try results[1].get() }
        #expect(throws: SingleFlightTests.Failure.self) { try results[2].get() }
        #expect(try results[3].get() == 4)
        gate.open()

        // All finished well before the deadline: no waiting for it.
        let quick = ContinuousClock.now
        let done = await Deadline.runEach(timeout: .seconds(120), [{ 7 }, { 8 }] as [@Sendable () async throws -> Int])
        #expect(try done.map { try $0.get() } == [7, 8])
        #expect(ContinuousClock.now - quick < .seconds(60))
        #expect(await Deadline.runEach(timeout: .seconds(1), [] as [@Sendable () async throws -> Int]).isEmpty)
    }

    @Test func cancellingTheCallerOfRunEachEndsTheWait() async throws {
        let gate = SingleFlightTests.Gate()
        let waiting = Task {
            await Deadline.runEach(timeout: .seconds(10), [{ await gate.wait(); return 1 }] as [@Sendable () async throws -> Int])
        }
        waiting.cancel()
        let results = await waiting.value
        #expect(throws: CancellationError.self) { try results[0].get() }
        gate.open()
    }
}

@Suite("Concurrency limit")
struct ConcurrencyLimitTests {
    @Test func placesGoToTheLongestWaiterAndNeverExceedTheLimit() async throws {
        let limit = ConcurrencyLimit(limit: 2, maxWaiting: 8)
        #expect(await limit.acquire(within: .seconds(30)))
        #expect(await limit.acquire(within: .seconds(30)))
        #expect(!(await limit.acquire(within: .milliseconds(20))), "a third holder past the limit of 2")
        // Two waiters, queued one after the other.
        let first = Task { await limit.acquire(within: .seconds(30)) }
        while limit.waitingCount < 1 { await Task.yield() }
        let second = Task { await limit.acquire(within: .seconds(30)) }
        while limit.waitingCount < 2 { await Task.yield() }
        // One place handed back: the first waiter holds it, the second still waits.
        limit.release()
        #expect(await first.value)
        #expect(limit.waitingCount == 1)
        limit.release()
        #expect(await second.value)
        #expect(limit.waitingCount == 0)
        // Both places are held (by the waiters): a newcomer waits, and gets a place once one is free.
        let third = Task { await limit.acquire(within: .seconds(30)) }
        while limit.waitingCount < 1 { await Task.yield() }
        limit.release()
        #expect(await third.value)
    }

    @Test func aFullLineTurnsCallersAwayAtOnceAndAWaitEndsAtItsDeadline() async throws {
        let limit = ConcurrencyLimit(limit: 1, maxWaiting: 1)
        #expect(await limit.acquire(within: .seconds(30)))
        let waiter = Task { await limit.acquire(within: .milliseconds(50)) }
        while limit.waitingCount < 1 { await Task.yield() }
        // The line holds one: the next caller is not queued.
        #expect(!(await limit.acquire(within: .seconds(30))))
        // The waiter's deadline passes before the place is released.
        #expect(!(await waiter.value))
        #expect(limit.waitingCount == 0)
        limit.release()
        #expect(await limit.acquire(within: .milliseconds(1)))
    }
}
