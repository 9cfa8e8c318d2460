import ArgumentParser
import BraidKafka
import BraidRedis
import BraidWiring

/// `braid version`: what this binary is, which C libraries it loaded and which allocator it runs on.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print Braid's version, the versions of the C libraries it uses and its memory allocator.")

    static let braidVersion = "0.1.0"

    func run() throws {
        let kafka = LibrdkafkaVersion.loaded
        let supported = kafka >= LibrdkafkaVersion.minimum
        print("braid \(Self.braidVersion)")
        let path = LibrdkafkaVersion.loadedPath.map { " from \($0)" } ?? ""
        print("librdkafka \(kafka)\(path)\(supported ? "" : " (unsupported: Kafka work needs \(LibrdkafkaVersion.minimum) or newer)")")
        print("hiredis \(hiredisVersion) (compile time)")
        print("allocator \(Allocator.current.description)")
        if !supported {
            throw ExitCode(1)
        }
    }
}
