import ArgumentParser
import BraidConfig
import BraidContracts
import BraidKafka
import BraidCore
import BraidPrecompute
import BraidRedis
import BraidWiring
import BraidWorker
import Foundation

/// `braid ops dlq …`: read the dead-letter topic, and replay its messages after a fix.
struct OpsDLQCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dlq", abstract: "List or replay dead-lettered requests.",
        discussion: """
            Both read the whole dead-letter topic (kafka.dead_letter_topic) up to its end as it is when \
            they start, with a throwaway consumer group (braid-ops-dlq-<random>): the workers' group \
            and its offsets are never touched. Kafka cannot delete single messages, so a replayed \
            message stays in the dead-letter topic; replay records each letter it republished in Redis \
            and skips it on later runs.
            """,
        subcommands: [OpsDLQListCommand.self, OpsDLQReplayCommand.self])
}

/// Which dead letters a command works on.
struct DeadLetterSelection: ParsableArguments {
    @Option(help: "Dead-letter topic (default: kafka.dead_letter_topic).") var topic: String?
    @Option(help: "Only dead letters whose reason contains this text (case-insensitive).") var reasonContains: String?
    @Option(help: "At most this many dead letters (the first ones, by partition and offset).") var limit: Int?
    @Option(help: "Seconds to wait for the topic to be read to its end.") var timeout: Int = 60

    func validateSelection() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    /// The selected dead letters and how many the topic holds in all.
    func read(_ kafka: BraidConfiguration.KafkaSection) async throws -> (selected: [DeadLetter], total: Int, topic: String) {
        let topic = topic ?? kafka.deadLetterTopic
        let all = try await DeadLetter.readAll(kafka, topic: topic, timeout: .seconds(timeout))
        var selected = all
        if let reasonContains {
            selected = selected.filter { $0.reason.range(of: reasonContains, options: .caseInsensitive) != nil }
        }
        if let limit { selected = Array(selected.prefix(limit)) }
        return (selected, all.count, topic)
    }
}

/// One message of the dead-letter topic with its `braid-dlq-*` headers decoded.
struct DeadLetter: Sendable {
    let message: KafkaConsumerMessage

    private func header(_ name: String) -> String {
        message.header(name).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    var reason: String { header(DeadLetterHeader.reason) }
    var source: String { header(DeadLetterHeader.source) }
    var attempts: String { header(DeadLetterHeader.attempts) }
    var failedAt: String { header(DeadLetterHeader.failedAt) }

    /// Header of a replayed request: `<topic>/<partition>/<offset>` of the dead letter it came from.

    /// The original request: same key and value, the original headers without ours, and
    /// where it was replayed from.
    func replay(to topic: String) -> KafkaProducerMessage {
        KafkaProducerMessage(
            topic: topic, key: message.key, value: message.value,
            headers: message.headers.filter { !$0.name.hasPrefix(DeadLetterHeader.prefix) && $0.name != DeadLetterHeader.replayOf }
                + [KafkaHeader(name: DeadLetterHeader.replayOf, value: "\(message.topic)/\(message.partition)/\(message.offset)")])
    }

    /// Every message of `topic` below the high watermarks it has when this starts, by
    /// partition and offset. Watermarks come from `KafkaAdmin.lag` of a group that never
    /// committed (its lag is high − low), which reads them the way every broker gets right.
    static func readAll(_ kafka: BraidConfiguration.KafkaSection, topic: String, timeout: Duration) async throws -> [DeadLetter] {
        let group = "braid-ops-dlq-\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try kafka.makeAdmin()
        let partitions = try await admin.lag(group: group, topic: topic)
        var end: [Int32: Int64] = [:]
        for partition in partitions where partition.lag > 0 { end[partition.partition] = partition.highWatermark }
        let expected = partitions.reduce(0) { $0 + $1.lag }
        guard !end.isEmpty else { return [] }

        let consumer = try kafka.makeDeadLetterReader(group: group, topic: topic)
        let deadline = Task {
            try await Task.sleep(for: timeout)
            await consumer.close()
        }
        var letters: [DeadLetter] = []
        var next: [Int32: Int64] = [:]
        func complete() -> Bool { end.allSatisfy { partition, high in (next[partition] ?? 0) >= high } }
        for try await message in consumer.messages {
            try? consumer.storeOffset(message)
            guard let high = end[message.partition], message.offset < high else { continue }
            letters.append(DeadLetter(message: message))
            next[message.partition] = max(next[message.partition] ?? 0, message.offset + 1)
            if complete() { break }
        }
        deadline.cancel()
        await consumer.close()
        guard complete() else {
            throw OpsError("read \(letters.count) of \(expected) messages of \(topic) within \(timeout) (is the broker reachable? try a longer --timeout)")
        }
        return letters.sorted { ($0.message.partition, $0.message.offset) < ($1.message.partition, $1.message.offset) }
    }

    /// Text safe for one terminal line: control characters become spaces, long text is cut.
    static func line(_ text: String, max: Int) -> String {
        var result = String(text.map { $0.isNewline || ($0.asciiValue.map { $0 < 0x20 || $0 == 0x7f } ?? false) ? " " : $0 })
        if result.count > max { result = String(result.prefix(Swift.max(max - 1, 0))) + "…" }
        return result
    }

    static func table(_ letters: [DeadLetter], reasonWidth: Int) -> String {
        let header = ["partition/offset", "failed-at", "attempts", "source", "reason", "key"]
        let rows = letters.map { letter in
            [
                "\(letter.message.partition)/\(letter.message.offset)", line(letter.failedAt, max: 32), line(letter.attempts, max: 8),
                line(letter.source, max: 80), line(letter.reason, max: reasonWidth), letter.message.keyString.map { line($0, max: 120) } ?? "-",
            ]
        }
        return OpsTable.render([header] + rows, leftAligned: [1, 3, 4, 5])
    }
}

/// `braid ops dlq list`.
struct OpsDLQListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List dead-lettered requests, one line each.",
        discussion: "Columns: partition/offset in the dead-letter topic, failed-at, attempts, source (topic/partition/offset of the original), reason (cut to --reason-width), key.")

    @OptionGroup var config: ConfigurationOption
    @OptionGroup var selection: DeadLetterSelection
    @Option(help: "Characters of the reason to show.") var reasonWidth: Int = 60

    func validate() throws {
        try selection.validateSelection()
        guard reasonWidth > 0 else { throw ValidationError("--reason-width must be positive") }
    }

    func run() async throws {
        let configuration = try config.loadForService()
        try LibrdkafkaVersion.requireSupported()
        let (selected, total, topic) = try await selection.read(configuration.kafka)
        if !selected.isEmpty { print(DeadLetter.table(selected, reasonWidth: reasonWidth)) }
        print("\(selected.count) of \(total) dead letters in \(topic) shown")
    }
}

/// `braid ops dlq replay`.
struct OpsDLQReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay", abstract: "Re-publish dead-lettered requests to the requests topic (after a fix).",
        discussion: """
            Each selected dead letter is published to kafka.requests_topic (or --to) with its original \
            key and value and its original headers, without the braid-dlq-* ones, plus braid-replay-of \
            (<topic>/<partition>/<offset> of the dead letter). Once the broker acknowledged it, a marker \
            in Redis (kept 30 days) records the replay: letters replayed before are skipped and counted, \
            so running the same replay twice publishes nothing twice (--again replays them anyway). \
            Progress goes to stderr; the final counts to stdout. Exits 1 unless every letter to replay \
            was acknowledged. With --dry-run, lists what would be replayed and publishes nothing.
            """)

    @OptionGroup var config: ConfigurationOption
    @OptionGroup var selection: DeadLetterSelection
    @Option(help: "Topic to publish to (default: kafka.requests_topic).") var to: String?
    @Flag(help: "Only list what would be replayed.") var dryRun = false
    @Flag(help: "Replay letters that were replayed before, too.") var again = false

    func validate() throws {
        try selection.validateSelection()
    }

    func run() async throws {
        let configuration = try config.loadForService()
        try LibrdkafkaVersion.requireSupported()
        let target = to ?? configuration.kafka.requestsTopic
        let (selected, total, topic) = try await selection.read(configuration.kafka)
        let keys = configuration.redis.cacheKeys
        let again = again
        let dryRun = dryRun
        let kafka = configuration.kafka
        let (summary, failed) = try await withOpsRedis(configuration) { redis -> (String, Int) in
            let ledger = ReplayLedger(redis: redis, keys: keys)
            let replayedBefore = again ? selected.map { _ in false } : try await ledger.wasReplayed(selected)
            let pending = zip(selected, replayedBefore).filter { !$0.1 }.map(\.0)
            let skipped = selected.count - pending.count
            if dryRun {
                if !pending.isEmpty { print(DeadLetter.table(pending, reasonWidth: 60)) }
                return ("dry run: would replay \(pending.count) of \(total) dead letters from \(topic) to \(target); skip \(skipped) already replayed", 0)
            }
            let (delivered, failed) = try await Self.publish(pending, to: target, kafka: kafka, ledger: ledger)
            return ("replayed \(delivered) of \(selected.count) selected (\(total) in \(topic)) to \(target); skipped \(skipped) already replayed; failed \(failed)", failed)
        }
        print(summary)
        if failed > 0 { throw ExitCode(1) }
    }

    /// Publishes each letter and waits for the broker, 64 at a time; records each replay
    /// once acknowledged. Returns how many were delivered and how many failed.
    static func publish(
        _ letters: [DeadLetter], to target: String, kafka: BraidConfiguration.KafkaSection, ledger: ReplayLedger
    ) async throws -> (delivered: Int, failed: Int) {
        guard !letters.isEmpty else { return (0, 0) }
        let producer = try kafka.makeProducer(clientID: "braid-ops-replay")
        let progress = ProgressBar(name: "replay")
        var delivered = 0
        var failed = 0
        var markerErrors: [String] = []
        await withTaskGroup(of: (delivered: Bool, markerError: String?).self) { group in
            var remaining = letters.makeIterator()
            for _ in 0..<64 {
                guard let letter = remaining.next() else { break }
                group.addTask { await replay(letter, to: target, producer: producer, ledger: ledger) }
            }
            for await outcome in group {
                if outcome.delivered { delivered += 1 } else { failed += 1 }
                if let markerError = outcome.markerError { markerErrors.append(markerError) }
                progress.update("sent", done: delivered + failed, total: letters.count)
                if let letter = remaining.next() {
                    group.addTask { await replay(letter, to: target, producer: producer, ledger: ledger) }
                }
            }
        }
        await producer.shutdown()
        progress.finish()
        if let first = markerErrors.first {
            FileHandle.standardError.write(Data("warning: \(markerErrors.count) replay(s) not recorded in Redis (they would be replayed again): \(first)\n".utf8))
        }
        return (delivered, failed)
    }

    /// Publishes one letter and, once acknowledged, records its replay.
    static func replay(
        _ letter: DeadLetter, to target: String, producer: KafkaProducer, ledger: ReplayLedger
    ) async -> (delivered: Bool, markerError: String?) {
        do {
            try await producer.sendAndAwait(letter.replay(to: target))
        } catch {
            return (false, nil)
        }
        do {
            try await ledger.recordReplay(of: letter)
            return (true, nil)
        } catch {
            return (true, "\(error)")
        }
    }
}
