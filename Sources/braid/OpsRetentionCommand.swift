import ArgumentParser
import BraidConfig
import BraidPrecompute
import BraidWiring
import Foundation

/// `braid ops retention`: one retention sweep now, whatever the workers' schedule.
struct OpsRetentionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention", abstract: "Delete expired walk records and impression states now (one retention sweep).",
        discussion: """
            Walk records and impression states have no Redis TTL, so that eviction cannot take them; the \
            workers delete them once expired, one worker every worker.retention_sweep_seconds. This runs \
            the same sweep once, from here: after a downgrade to a Braid without the sweep, or to see \
            what a sweep finds. It prints the records it examined and deleted.
            """)

    @OptionGroup var config: ConfigurationOption

    func run() async throws {
        let configuration = try config.loadForService()
        let outcome = try await withOpsRedis(configuration) { redis in
            try await RetentionSweep(redis: redis, keys: configuration.redis.cacheKeys).sweep()
        }
        print("examined \(outcome.examined) retained records, deleted \(outcome.deleted)")
    }
}
