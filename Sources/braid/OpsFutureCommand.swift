import ArgumentParser
import BraidCore
import BraidPrecompute
import Foundation
import BraidConfig
import BraidContracts
import BraidWiring

/// `braid ops future [--repair --yes]`: rankings and components frozen by a version dated in the future.
struct OpsFutureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "future", abstract: "Find (and with --repair, remove) cache entries whose version is dated in the future.",
        discussion: """
            A request whose requested_at lay in the future (a producer with a wrong clock) stored a version \
            that every later request for the same ranking or component is older than, so the entry could \
            never be refreshed. Workers now dead-letter such requests; this finds entries stored before. \
            It lists every ranking pointer and component whose version is more than --tolerance seconds \
            ahead of this machine's clock, and exits 1 when it finds any. With --repair --yes it deletes \
            them (a ranking's pointer, the version it names and its refresh marker; a component's content \
            and request marker), unless a worker replaced them meanwhile; the next request materializes a \
            version of today.
            """)

    @OptionGroup var config: ConfigurationOption
    @Option(help: "Seconds a version may be ahead of this machine's clock.") var tolerance: Int = ClockSkew.toleranceSeconds
    @Flag(help: "Delete what is found (needs --yes).") var repair = false
    @Flag(help: "Confirm --repair.") var yes = false

    func validate() throws {
        guard tolerance >= 0 else { throw ValidationError("--tolerance must be 0 or more") }
        guard !repair || yes else { throw ValidationError("--repair deletes data: add --yes to confirm") }
    }

    func run() async throws {
        let configuration = try config.loadForService()
        let (tolerance, repair) = (tolerance, repair)
        let (found, removed) = try await withOpsRedis(configuration) { redis in
            let store = PrecomputeStore(redis: redis, keys: configuration.redis.cacheKeys)
            let found = try await store.futureDatedEntries(tolerance: .seconds(tolerance))
            var removed: [String] = []
            if repair {
                for entry in found { removed += try await store.remove(entry) }
            }
            return (found, removed)
        }
        let now = Date()
        for entry in found {
            let ahead = Int(entry.versionDate.timeIntervalSince(now))
            print("\(entry.kind.rawValue)  \(entry.key)  version \(entry.version) (\(entry.versionDate.formatted(.iso8601)), \(ahead) s ahead)")
        }
        print("\(found.count) entr\(found.count == 1 ? "y" : "ies") dated more than \(tolerance) s ahead")
        guard repair else {
            if !found.isEmpty { throw ExitCode(1) }
            return
        }
        for key in removed { print("deleted \(key)") }
        print("deleted \(removed.count) key\(removed.count == 1 ? "" : "s")")
    }
}
