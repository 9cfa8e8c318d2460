import BraidConfig
import BraidSources
import BraidWiring
import Foundation
import HummingbirdTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A gateway in this process whose Redis and Kafka are unreachable for real: their addresses
/// are loopback ports that are bound but never listen, so every connection is refused at
/// once. Its live backend is a SQLite corpus seeded into a temporary folder. Needs no server,
/// so its tests run in the fast tier, in parallel.
enum OfflineGateway {
    /// A loopback TCP port held bound without listening: connecting to it is refused, and no
    /// other process can take it while the test runs.
    final class RefusingPort: @unchecked Sendable {
        let port: Int
        private let descriptor: Int32

        init() throws {
            #if os(Linux)
                let stream = Int32(SOCK_STREAM.rawValue)
            #else
                let stream = SOCK_STREAM
            #endif
            let descriptor = socket(AF_INET, stream, 0)
            guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
                }
            }
            guard bound else {
                close(descriptor)
                throw POSIXError(.init(rawValue: errno) ?? .EIO)
            }
            self.descriptor = descriptor
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit {
            close(descriptor)
        }
    }

    /// Runs `body` against a gateway over a fresh corpus of `documents` recipes and `users`
    /// users, with Redis and Kafka refusing every connection.
    static func with<T: Sendable>(
        documents: Int = 120, users: Int = 6, live: Bool = false, configure: (inout BraidConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (any TestClientProtocol, GatewayAssembly) async throws -> T
    ) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("braid-offline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let corpus = folder.appendingPathComponent("corpus.sqlite").path
        _ = try await CorpusWriter.seed(CorpusGenerator(seed: 5, documents: documents, users: users), path: corpus)
        let (redis, kafka) = (try RefusingPort(), try RefusingPort())

        var configuration = BraidConfiguration()
        configuration.redis.url = "redis://127.0.0.1:\(redis.port)"
        configuration.redis.commandTimeout = .milliseconds(500)
        configuration.kafka.brokers = "127.0.0.1:\(kafka.port)"
        configuration.kafka.properties["log_level"] = "0"
        configuration.search.sqlite.path = corpus
        configuration.gateway.port = 0
        // Generous, as GatewayHarness's: beside the rest of the fast tier (and CI's release build)
        // a 120-recipe query once waited more than 10 s for a thread and turned into a 503.
        // Deadlines have tests of their own.
        configuration.gateway.liveTimeout = .seconds(60)
        configuration.gateway.batchTimeout = .seconds(10)  // the most a batch may wait
        configuration.interleaving.arms = [.init(name: "ab", weight: 100)]
        configure(&configuration)
        let result = try await GatewayHarness.with(configuration, waitForRedis: false, live: live) { client, gateway in
            try await body(client, gateway)
        }
        withExtendedLifetime((redis, kafka)) {}
        return result
    }
}
