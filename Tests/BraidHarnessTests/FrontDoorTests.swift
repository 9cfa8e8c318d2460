import BraidHarness
import BraidTestSupport
import Foundation
import Testing

/// `make run`'s lifecycle, through the executable it calls (`braid-local`) with the debug
/// `braid`, on free ports and a folder of its own: stop, restart, stale files, leftovers, kill.
@Suite("make run's lifecycle", .integration)
struct FrontDoorTests {
    /// One `braid-local` and what it needs to be watched.
    struct Run {
        let process: ChildProcess
        let folder: URL
        let ports: [String: Int]
        let log: URL

        /// The pids of the processes it recorded (redis-server, broker, worker, gateway).
        var children: [pid_t] {
            let records = folder.appendingPathComponent("processes")
            return ((try? FileManager.default.contentsOfDirectory(atPath: records.path)) ?? []).compactMap {
                pid_t($0.replacingOccurrences(of: ".json", with: ""))
            }
        }

        var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

        static func start(folder: URL, ports: [String: Int], extra: [String: String] = [:]) async throws -> Run {
            let log = folder.appendingPathExtension("\(UUID().uuidString.prefix(8)).out")
            let binary = URL(fileURLWithPath: BraidService.binary).deletingLastPathComponent().appendingPathComponent("braid-local").path
            var environment = ports.mapValues(String.init).merging(extra) { $1 }
            environment["BRAID_RUN_DIR"] = folder.path
            environment["BRAID_DOCS"] = "300"
            environment["BRAID_PARTITIONS"] = "2"
            let process = try await TestRun.start(binary, [], environment: environment, log: log)
            return Run(process: process, folder: folder, ports: ports, log: log)
        }

        /// Waits until it says it is running (or fails with its output).
        func waitUntilRunning() async throws {
            try await Readiness.wait(for: "braid-local", process: process, timeout: .seconds(120), interval: .milliseconds(100)) {
                output.contains("run: running:")
            }
        }
    }

    static func ports() throws -> [String: Int] {
        let free = try Ports.free(count: 4)
        return [
            "BRAID_REDIS_PORT": free[0], "BRAID_KAFKA_PORT": free[1], "BRAID_WORKER_METRICS_PORT": free[2],
            "BRAID_GATEWAY_PORT": free[3],
        ]
    }

    static func folder() throws -> URL {
        try TestEnvironment.runDirectory().appendingPathComponent(TestEnvironment.uniqueName("front-door"))
    }

    static func allGone(_ pids: [pid_t], within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if pids.allSatisfy({ ProcessIdentity.of($0) == nil }) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return pids.allSatisfy { ProcessIdentity.of($0) == nil }
    }

    @Test func ctrlCStopsEverythingAndExitsZeroAndARestartAtOnceSucceeds() async throws {
        let folder = try Self.folder()
        let ports = try Self.ports()
        let first = try await Run.start(folder: folder, ports: ports)
        try await first.waitUntilRunning()
        let children = first.children
        #expect(children.count == 4)

        // An idle client of the gateway, as a browser leaves one: the gateway closes it first
        // when it stops, so the gateway's port keeps a TIME_WAIT socket for a minute after.
        let gatewayPort = try #require(ports["BRAID_GATEWAY_PORT"])
        let idle = try PortsTests.connect(gatewayPort)
        first.process.signal(SIGINT)  // what a terminal's Ctrl-C sends to the foreground process
        let status = try #require(await first.process.waitForExit(timeout: .seconds(60)), "still running after Ctrl-C")
        #expect(ChildProcess.exitCode(status) == 0, "\(first.output)")
        #expect(first.output.contains("run: stopped"))
        #expect(await Self.allGone(children, within: .seconds(1)))
        var byte: UInt8 = 0
        _ = read(idle, &byte, 1)
        close(idle)

        // A plain bind of that port fails now; the check binds as the servers do.
        #expect(PortsTests.timeWaitSockets(on: gatewayPort) > 0, "no TIME_WAIT on \(gatewayPort); the restart proves less")
        #expect(!PortsTests.plainBindSucceeds(gatewayPort))
        let second = try await Run.start(folder: folder, ports: ports)
        try await second.waitUntilRunning()
        second.process.signal(SIGINT)
        #expect(await second.process.waitForExit(timeout: .seconds(60)).flatMap(ChildProcess.exitCode) == 0)
    }

    @Test("GATEWAYS=3: three gateways behind HAProxy on the gateway port, every one of them serving; Ctrl-C stops all and exits 0")
    func threeGatewaysBehindTheBalancer() async throws {
        let folder = try Self.folder()
        let ports = try Self.ports()
        let run = try await Run.start(folder: folder, ports: ports, extra: ["BRAID_GATEWAYS": "3"])
        try await run.waitUntilRunning()
        let children = run.children
        #expect(children.count == 7, "redis-server, broker, worker, three gateways, haproxy: \(run.output)")
        let gatewayPort = try #require(ports["BRAID_GATEWAY_PORT"])
        #expect(run.output.contains("haproxy started") && run.output.contains("at http://127.0.0.1:\(gatewayPort)"), "\(run.output)")
        // Round robin: six pages through the balancer reach each gateway twice, so each of them
        // counts search requests in its own /metrics.
        for _ in 0..<6 {
            let page = try await HTTPProbe.request("http://127.0.0.1:\(gatewayPort)/v1/search?q=curry&per_page=3")
            #expect(page.status == 200, "\(page.text)")
        }
        let members = run.output.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("gateway started"), let start = line.range(of: "http://") else { return nil }
            return String(line[start.lowerBound...].prefix { $0 != "," && $0 != ")" })
        }
        #expect(members.count == 3, "\(run.output)")
        for member in members {
            let metrics = try await HTTPProbe.request("\(member)/metrics").text
            #expect(metrics.contains("\"/v1/search\""), "\(member) served no page: \(metrics.prefix(300))")
        }
        run.process.signal(SIGINT)
        #expect(await run.process.waitForExit(timeout: .seconds(60)).flatMap(ChildProcess.exitCode) == 0, "\(run.output)")
        #expect(await Self.allGone(children, within: .seconds(1)))
    }

    @Test func staleFilesOfEarlierRunsDoNotStopARun() async throws {
        let folder = try Self.folder()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("processes"), withIntermediateDirectories: true)
        // What earlier stops left: a pid file naming a dead pid, and a record of a process that
        // is gone, owned by a harness that is gone.
        let dead = try await RunDirectoryTests.deadIdentity()
        try "\(dead.pid)".write(to: folder.appendingPathComponent("redis-6379.pid"), atomically: true, encoding: .utf8)
        try RunDirectoryTests.writeRecord(in: folder, process: dead, owner: dead)

        let run = try await Run.start(folder: folder, ports: try Self.ports())
        try await run.waitUntilRunning()
        try await Task.sleep(for: .seconds(3))
        #expect(!run.process.hasExited, "\(run.output)")
        let gateway = try #require(run.ports["BRAID_GATEWAY_PORT"])
        #expect(await HTTPProbe.isOK("http://127.0.0.1:\(gateway)/healthz"))
        run.process.signal(SIGINT)
        #expect(await run.process.waitForExit(timeout: .seconds(60)).flatMap(ChildProcess.exitCode) == 0)
    }

    @Test func whatAnUncleanStopLeftOnAPortIsStoppedButAStrangerIsNot() async throws {
        let folder = try Self.folder()
        var ports = try Self.ports()
        let redisPort = try #require(ports["BRAID_REDIS_PORT"])
        // A redis-server an earlier run started and could not stop (its harness was killed in a
        // way that left it running), recorded in the folder with that harness as owner.
        let scratch = try await RunDirectory(folder.appendingPathExtension("scratch"))
        let leftover = try await RedisServer.start(in: scratch, port: redisPort)
        scratch.forget(leftover.process)
        let identity = try #require(ProcessIdentity.of(leftover.process.pid))
        try RunDirectoryTests.writeRecord(in: folder, process: identity, owner: try await RunDirectoryTests.deadIdentity())

        let run = try await Run.start(folder: folder, ports: ports)
        try await run.waitUntilRunning()
        #expect(leftover.process.hasExited, "the leftover redis-server still runs")
        #expect(run.output.contains("redis-server listening on 127.0.0.1:\(redisPort)"))
        run.process.signal(SIGINT)
        #expect(await run.process.waitForExit(timeout: .seconds(60)).flatMap(ChildProcess.exitCode) == 0)

        // Something that is not ours on the gateway's port: refused, and left alone.
        let stranger = try PortsTests.listen(try #require(ports["BRAID_GATEWAY_PORT"]))
        defer { close(stranger) }
        ports["BRAID_REDIS_PORT"] = try Ports.free()
        let refused = try await Run.start(folder: folder, ports: ports)
        let status = try #require(await refused.process.waitForExit(timeout: .seconds(60)))
        #expect(ChildProcess.exitCode(status) != 0)
        #expect(refused.output.contains("by a process this harness did not start"), "\(refused.output)")
        #expect(!Ports.isFree(try #require(ports["BRAID_GATEWAY_PORT"])))
    }

    @Test func aKilledHarnessLeavesNoChildAliveAfterFiveSeconds() async throws {
        let run = try await Run.start(folder: try Self.folder(), ports: try Self.ports())
        try await run.waitUntilRunning()
        let children = run.children
        #expect(children.count == 4)
        run.process.signal(SIGKILL)
        #expect(await Self.allGone(children, within: .seconds(5)), "survivors: \(children.filter { ProcessIdentity.of($0) != nil })")
    }

    /// `make run`'s user walks 1-item pages as fast as a script can, eight walks at once (1,600
    /// requests, eight times the per-address burst): never a 429. The same walks against a
    /// gateway started with the built-in defaults on the same stack are limited: the exemption
    /// is make run's, not the defaults'.
    @Test func aLoopbackClientOfMakeRunIsNeverRateLimitedButTheDefaultsStillLimit() async throws {
        let run = try await Run.start(folder: try Self.folder(), ports: try Self.ports())
        try await run.waitUntilRunning()
        let gateway = try #require(run.ports["BRAID_GATEWAY_PORT"])
        let made = try await Self.walk("http://127.0.0.1:\(gateway)", walkers: 8, requests: 200)
        #expect(made.served == 1_600 && made.refused == 0, "make run: \(made)")

        let scratch = try await RunDirectory(try Self.folder())
        let environment = [
            "BRAID_REDIS_URL": "redis://127.0.0.1:\(try #require(run.ports["BRAID_REDIS_PORT"]))",
            "BRAID_KAFKA_BROKERS": "127.0.0.1:\(try #require(run.ports["BRAID_KAFKA_PORT"]))",
            "BRAID_SEARCH_SQLITE_PATH": run.folder.appendingPathComponent("corpus.sqlite").path,
        ]
        let defaults = try await BraidService.gateway(in: scratch, environment: environment)
        let limited = try await Self.walk(defaults.baseURL, walkers: 8, requests: 200)
        await scratch.stopAll()
        run.process.signal(SIGINT)
        _ = await run.process.waitForExit(timeout: .seconds(60))
        #expect(limited.refused > 0, "the built-in defaults did not limit: \(limited)")
    }

    /// `walkers` clients at once, each sending `requests` requests as fast as the answers come,
    /// following `next_cursor` through 1-item pages and starting again when a walk ends: the
    /// pages served and the 429s.
    static func walk(_ base: String, walkers: Int, requests: Int) async throws -> (served: Int, refused: Int) {
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<walkers {
                group.addTask {
                    var served = 0, refused = 0
                    let first = "\(base)/v1/search?q=chicken&per_page=1&session=walk-\(index)"
                    var url = first
                    for _ in 0..<requests {
                        let response = try await HTTPProbe.request(url, timeout: .seconds(30))
                        if response.status == 429 {
                            refused += 1
                            continue
                        }
                        guard response.status == 200 else { break }
                        served += 1
                        let cursor = response.json?["next_cursor"] as? String
                        url = cursor.map { "\(base)/v1/search?q=chicken&cursor=\($0)&session=walk-\(index)" } ?? first
                    }
                    return (served, refused)
                }
            }
            var total = (served: 0, refused: 0)
            for try await (served, refused) in group {
                total.served += served
                total.refused += refused
            }
            return total
        }
    }
}
