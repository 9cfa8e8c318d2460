import BraidHarness
import Foundation

/// kcat, the kafka group's baseline: the same librdkafka as ours, another program around it.
enum Kcat {
    /// Seconds of `kcat -P` producing every line of `payload` as a message, from before its
    /// start to its exit, with the settings ours uses: linger.ms=5, idempotent, acks=all.
    static func produce(brokers: String, topic: String, payload: URL, in run: RunDirectory) async throws -> Double {
        let kcat = try Toolchain.find("kcat")
        let started = ContinuousClock.now
        let child = try await run.start(
            kcat,
            ["-P", "-b", brokers, "-t", topic, "-X", "linger.ms=5", "-X", "enable.idempotence=true", "-X", "acks=all", "-l", payload.path],
            log: "kcat-produce.log")
        let status = await child.waitForExitClosely(timeout: .seconds(3_600))
        let seconds = Format.seconds(ContinuousClock.now - started)
        run.forget(child)
        guard let status, ChildProcess.exitCode(status) == 0 else {
            child.kill9()
            throw BenchmarkError("kcat -P failed: \(BenchmarkContext.tail(child.log))")
        }
        return seconds
    }

    struct Consumed {
        var count: Int
        /// From the first message read to the last.
        var firstToLast: Double
        /// The whole run: start-up, metadata, fetching to the end of every partition.
        var total: Double
    }

    /// `kcat -C` of every partition from the beginning to its end, no consumer group; a reader
    /// counts the messages (lines of `messageLength` bytes) and stamps the first it sees.
    static func consume(brokers: String, topic: String, messageLength: Int, in run: RunDirectory) async throws -> Consumed {
        let kcat = try Toolchain.find("kcat")
        let pipe = try FIFOLineCounter(at: run.file("kcat-consume.fifo"))
        let started = ContinuousClock.now
        let child = try await run.start(kcat, ["-C", "-b", brokers, "-t", topic, "-e", "-o", "beginning", "-q"], logFile: pipe.url)
        // kcat -e ends at the end of every partition; one that never gets there is stopped.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(3_600))
            child.kill9()
        }
        let counted = await pipe.count(lineLength: messageLength)
        watchdog.cancel()
        let status = await child.waitForExit(timeout: .seconds(30))
        run.forget(child)
        guard let status, ChildProcess.exitCode(status) == 0 else {
            child.kill9()
            throw BenchmarkError("kcat -C failed (status \(status.map(String.init) ?? "none"))")
        }
        let first = counted.first ?? counted.end
        return Consumed(count: counted.lines, firstToLast: Format.seconds(counted.end - first), total: Format.seconds(counted.end - started))
    }
}
