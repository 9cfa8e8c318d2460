import BraidHarness
import BraidRedis
import BraidDevSupport
import Foundation

/// What scenarios do with a fixture: start workers, publish requests, count snapshots and
/// dead letters.
extension WorkerFixture {
    /// Starts workers called `names` one after the other, each waited for until it owns
    /// partitions of the requests topic, `spacing` apart: on the local broker, members that
    /// join in the same instant can leave the group unassigned (RELIABILITY.md).
    func startWorkers(_ names: [String], spacing: Duration = .seconds(4)) async throws -> [ChildProcess] {
        var workers: [ChildProcess] = []
        for name in names {
            if !workers.isEmpty { try await Task.sleep(for: spacing) }
            workers.append(try await startWorker(name))
            try await waitUntilAssigned(name)
        }
        return workers
    }

    /// JSON Lines of ranking requests (`featured`, size 20) for `queries`.
    static func rankingRequests(_ queries: [String]) -> [String] {
        queries.map { DemoRequests.ranking($0, size: 20) }
    }

    /// Publishes request lines through `braid publish --file` (the file is `<name>.jsonl` in
    /// the log folder); returns its exit status and the last line it printed.
    func publish(_ lines: [String], as name: String) async throws -> (status: Int32, lastLine: String) {
        let file = logFolder.appendingPathComponent("\(name).jsonl")
        try DemoRequests.write(lines, to: file)
        let (status, output) = try await ChildProcess.run(binary, ["publish", "--file", file.path], environment: environment, timeout: .seconds(120))
        try? output.write(to: logFolder.appendingPathComponent("\(name)-publish.log"), atomically: true, encoding: .utf8)
        return (status, output.split(separator: "\n").last.map(String.init) ?? "")
    }

    /// Snapshot pointers under the fixture's key prefix: one per distinct materialized query
    /// (on every primary of a cluster).
    func snapshots(in redis: RedisClient) async throws -> Int {
        try await redis.scanKeys(matching: RedisClient.globPattern(prefix: "\(keyPrefix):{rank:") + ":cur", count: 1000).count
    }

    /// ``snapshots(in:)``, asked again for up to 10 s while a node does not answer (a
    /// cluster whose map still names a dead primary).
    func snapshotsEventually(in redis: RedisClient) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            do {
                return try await snapshots(in: redis)
            } catch where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// Waits until there are `count` snapshots, polling every `interval`; false after `timeout`.
    func waitForSnapshots(_ count: Int, in redis: RedisClient, timeout: Duration, interval: Duration = .milliseconds(500)) async throws
        -> Bool
    {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = try? await snapshots(in: redis), found >= count { return true }
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: interval)
        }
    }

    /// Messages in the dead-letter topic.
    func deadLetters() async throws -> Int {
        try await TopicContents.count(deadLetterTopic, brokers: brokers)
    }
}
