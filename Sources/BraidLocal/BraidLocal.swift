import ArgumentParser
import BraidHarness
import Foundation

/// `braid-local`, behind `make run`: the whole system on its embedded defaults, until Ctrl-C or
/// SIGTERM. An executable of its own, apart from `braid-dev`, so that `make run` compiles the
/// harness it needs and not the tests' fixtures, the fault scenarios and the benchmarks.
///
/// It owns the lifecycle: it checks ports the way the servers bind them, stops what an unclean
/// stop of an earlier run in the same folder left behind (and nothing else), watches only the
/// processes it started, and on Ctrl-C stops the services (they drain) and then the servers,
/// and exits 0.
@main
struct BraidLocal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "braid-local",
        abstract: "Run Redis, the broker, a worker and the gateway locally until Ctrl-C.",
        discussion: """
            Environment: BRAID_REDIS_PORT (6379), BRAID_KAFKA_PORT (9092), BRAID_WORKER_METRICS_PORT (9464),
            BRAID_GATEWAY_PORT (8080), BRAID_GATEWAYS (1; more: that many gateways on free ports behind HAProxy on
            BRAID_GATEWAY_PORT, health-checked on /readyz), BRAID_PARTITIONS (6), BRAID_DOCS (20000: recipes of the demo corpus,
            seeded on first run), BRAID_RUN_DIR (.run/local: logs, records of the processes, the corpus),
            BRAID (the braid binary; default: the one next to braid-local).
            """)

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        func port(_ name: String, _ fallback: Int) throws -> Int {
            guard let raw = environment[name], !raw.isEmpty else { return fallback }
            guard let value = Int(raw), (0...65535).contains(value) else { throw ValidationError("\(name)=\(raw) is not a port") }
            return value
        }
        let redisPort = try port("BRAID_REDIS_PORT", 6379)
        let kafkaPort = try port("BRAID_KAFKA_PORT", 9092)
        let metricsPort = try port("BRAID_WORKER_METRICS_PORT", 9464)
        let gatewayPort = try port("BRAID_GATEWAY_PORT", 8080)
        let partitions = Int(environment["BRAID_PARTITIONS"] ?? "") ?? 6
        let gatewayCount = environment["BRAID_GATEWAYS"].flatMap { $0.isEmpty ? nil : $0 } ?? "1"
        guard let gatewayCount = Int(gatewayCount), (1...16).contains(gatewayCount) else {
            throw ValidationError("BRAID_GATEWAYS=\(gatewayCount) is not a count of gateways (1-16)")
        }
        let documents = Int(environment["BRAID_DOCS"] ?? "") ?? 20_000
        let folder = environment["BRAID_RUN_DIR"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? Toolchain.root.appendingPathComponent(".run/local")
        let say = { (message: String) in FileHandle.standardError.write(Data("run: \(message)\n".utf8)) }

        let signals = Signals.stream()
        // Reclaims what an earlier run in this folder left running, before the ports are checked.
        let run = try await RunDirectory(folder, exclusive: true)
        for (port, what) in [(redisPort, "redis-server"), (kafkaPort, "the Kafka broker"), (metricsPort, "the worker's /metrics"), (gatewayPort, "the gateway")]
        where !Ports.isFree(port) {
            throw HarnessError.portInUse(port, for: what)
        }
        let binary = BraidService.binary
        say(try await ChildProcess.check(binary, ["version"]).trimmingCharacters(in: .whitespacesAndNewlines))

        let stack: LocalStack
        let worker: BraidService
        let front: Front
        do {
            stack = try await LocalStack.start(
                in: run, redisPort: redisPort, kafkaPort: kafkaPort, partitions: partitions,
                corpus: environment["BRAID_SEARCH_SQLITE_PATH"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) },
                documents: documents, users: 500, binary: binary, say: say)
            let services = stack.environment.merging(["BRAID_WORKER_METRICS_PORT": "\(metricsPort)", "BRAID_GATEWAY_PORT": "\(gatewayPort)"]) { $1 }
                .merging(RunSettings.services(gatewayHost: environment["BRAID_GATEWAY_HOST"])) { $1 }
            worker = try await BraidService.worker(in: run, environment: services, binary: binary)
            say("worker started (pid \(worker.process.pid), log \(run.file("worker.log").path), metrics http://127.0.0.1:\(metricsPort)/metrics)")
            if gatewayCount == 1 {
                let gateway = try await BraidService.gateway(in: run, port: gatewayPort, environment: services, binary: binary)
                front = .gateway(gateway)
                say("gateway started (pid \(gateway.process.pid), log \(run.file("gateway.log").path))")
            } else {
                let fleet = try await GatewayFleet.start(in: run, count: gatewayCount, port: gatewayPort, environment: services, binary: binary)
                front = .fleet(fleet)
                for member in fleet.members {
                    say("gateway started (pid \(member.process.pid), \(member.baseURL), log \(run.file("\(member.name).log").path))")
                }
                say("haproxy started (pid \(fleet.balancer.process.pid)) at \(fleet.baseURL), in front of the \(gatewayCount) gateways")
            }
            try await stack.publish(DemoRequests.demo(), name: "demo-requests", binary: binary)
            say("published demo requests; see them with: redis-cli -p \(redisPort) --scan --pattern 'braid:*'")
        } catch {
            await run.stopAll()
            throw error
        }
        say("running: gateway at \(front.baseURL), Redis at \(stack.redis.url), Kafka at \(stack.broker.brokers)")
        say("try: curl '\(front.baseURL)/v1/search?q=curry+rice&per_page=5'")
        say("console: \(front.baseURL)/console/ (search and feed previews, experiments, workers)")
        say("Ctrl-C stops everything")

        // Until a signal, or until one of our own processes dies (then the rest stop too).
        let watched = [stack.redis.process, stack.broker.process, worker.process] + front.processes
        let exited: ChildProcess? = await withTaskGroup(of: ChildProcess?.self) { group in
            group.addTask {
                for await _ in signals { return nil }
                return nil
            }
            group.addTask {
                while !Task.isCancelled {
                    if let dead = watched.first(where: \.hasExited) { return dead }
                    try? await Task.sleep(for: .milliseconds(500))
                }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let exited {
            say("process \(exited.pid) (\(exited.executable)) exited; stopping")
        }
        // Services first (they drain into Redis and Kafka), then the servers.
        await front.stop()
        await worker.stop()
        await run.stopAll()
        say("stopped")
        if exited != nil { throw ExitCode(1) }
    }
}

/// What clients call: one gateway, or a fleet behind HAProxy.
enum Front {
    case gateway(BraidService)
    case fleet(GatewayFleet)

    var baseURL: String {
        switch self {
        case .gateway(let gateway): gateway.baseURL
        case .fleet(let fleet): fleet.baseURL
        }
    }

    var processes: [ChildProcess] {
        switch self {
        case .gateway(let gateway): [gateway.process]
        case .fleet(let fleet): fleet.members.map(\.process) + [fleet.balancer.process]
        }
    }

    func stop() async {
        switch self {
        case .gateway(let gateway): await gateway.stop()
        case .fleet(let fleet): await fleet.stop()
        }
    }
}
