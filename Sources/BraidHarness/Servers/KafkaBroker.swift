import Foundation

/// The Kafka-protocol broker of the local stack: Tansu, memory storage only.
///
/// A restart is a new, empty broker, so every start creates the topics again; fault tests
/// freeze it (SIGSTOP/SIGCONT) rather than restart it.
public final class KafkaBroker: Sendable {
    /// The topics `braid` uses by default.
    public static let defaultTopics = ["braid.requests", "braid.requests.dlq", "braid.events"]

    public let port: Int
    public let placement: Placement
    public let process: ChildProcess
    private let run: RunDirectory

    /// `<address>:<port>`, for `kafka.brokers`.
    public var brokers: String { "\(placement.address):\(port)" }

    private init(port: Int, placement: Placement, process: ChildProcess, run: RunDirectory) {
        self.port = port
        self.placement = placement
        self.process = process
        self.run = run
    }

    /// Starts the broker on `port` (a free one when nil), waits until it accepts
    /// connections, and creates `topics` with `partitions` partitions each. It listens on its
    /// placement's address and tells clients to connect to `advertisedHost` (by default the
    /// same; another name of this host for clients in a network namespace of their own).
    public static func start(
        in run: RunDirectory, port: Int? = nil, topics: [String] = defaultTopics, partitions: Int = 6,
        advertisedHost: String? = nil, on placement: Placement = .loopback
    ) async throws(HarnessError) -> KafkaBroker {
        guard FileManager.default.isExecutableFile(atPath: Toolchain.tansu) else {
            throw .missingTool("the broker (tansu)", hint: "run Deploy/local/bootstrap.sh (make run and make test do)")
        }
        let port = try Ports.given(port)
        let process = try await run.start(
            Toolchain.tansu,
            [
                "broker", "--listener-url", "tcp://\(placement.address):\(port)",
                "--advertised-listener-url", "tcp://\(advertisedHost ?? placement.address):\(port)",
            ],
            log: "broker-\(placement.address)-\(port).log", namespace: placement.namespace)
        let broker = KafkaBroker(port: port, placement: placement, process: process, run: run)
        do {
            try await Readiness.wait(for: "the broker on port \(port)", process: process, timeout: .seconds(20)) { Ports.accepts(port, host: placement.address) }
            for topic in topics { try await broker.createTopic(topic, partitions: partitions) }
        } catch {
            await broker.stop()
            throw error
        }
        return broker
    }

    /// Creates a topic; one that exists already counts as created. Retried for a while: the
    /// broker answers connections a moment before it serves admin requests.
    public func createTopic(_ topic: String, partitions: Int = 6) async throws(HarnessError) {
        try await Readiness.wait(for: "topic creation for \(topic)", process: process, timeout: .seconds(20), interval: .milliseconds(100)) {
            guard let (status, output) = try? await ChildProcess.run(
                Toolchain.tansu, ["topic", "create", topic, "--partitions", "\(partitions)", "--broker", "tcp://\(placement.address):\(port)"])
            else { return false }
            return status == 0 || output.contains("already exists")
        }
    }

    /// Freezes the broker (SIGSTOP): connections hang rather than fail.
    public func freeze() { process.signal(SIGSTOP) }

    /// Lets a frozen broker run again.
    public func thaw() { process.signal(SIGCONT) }

    public func stop() async {
        await run.stop(process)
    }
}
