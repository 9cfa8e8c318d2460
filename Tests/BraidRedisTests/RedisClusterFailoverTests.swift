import BraidRedis
import BraidTestSupport
import Foundation
import Synchronization
import Testing

/// A primary SIGKILLed under a steady stream of commands, on a private cluster (its nodes
/// notice a dead peer after 1 s): the client fails fast for that primary's slots only, and
/// serves them again from the promoted replica without a restart.
@Suite("Redis Cluster failover (private cluster)", .integration)
struct RedisClusterFailoverTests {
    @Test func aKilledPrimaryIsReplacedByItsReplica() async throws {
        try await RedisClusterProcess.with(nodeTimeout: .milliseconds(1000)) { cluster in
            try await withRedisClusterClient(cluster.urls, poolSize: 2, commandTimeout: .milliseconds(500)) { redis in
                try await RedisClusterAdmin.with(nodes: cluster.nodes) { admin in
                    let victim = redis.primaries()[0], survivor = redis.primaries()[1]
                    let doomed = RedisClusterTests.key(on: victim, redis, prefix: "doomed")
                    let safe = RedisClusterTests.key(on: survivor, redis, prefix: "safe")
                    try await redis.set(doomed, to: "replicated before the crash")
                    try await redis.set(safe, to: "elsewhere")
                    let replica = try await admin.syncedReplica(of: victim.description)
                    // The write reached the replica before the crash.
                    #expect(try await redis.send(["WAIT", "1", "2000"], node: victim, timeout: .seconds(3)) == .integer(1))

                    try cluster.kill(port: victim.port)
                    let killed = ContinuousClock.now
                    var doomedFailures = 0, safeFailures = 0, serverErrors = 0
                    var recoveredAfter: Duration?
                    while ContinuousClock.now - killed < .seconds(30) {
                        do {
                            _ = try await redis.get(safe)
                        } catch {
                            safeFailures += 1
                        }
                        let started = ContinuousClock.now
                        do {
                            let value = try await redis.getString(doomed)
                            #expect(value == "replicated before the crash")
                            recoveredAfter = ContinuousClock.now - killed
                            break
                        } catch is RedisConnectionError {
                            doomedFailures += 1
                            // No node serves the slot: the command fails, within its 500 ms
                            // timeout at the latest; it does not hang. (The bound leaves room for
                            // the fast tier running beside this test.)
                            #expect(ContinuousClock.now - started < .seconds(5))
                        } catch {
                            serverErrors += 1
                        }
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    let recovery = try #require(recoveredAfter, "the slot was not served again within 30 s")
                    #expect(doomedFailures > 0, "the window without a primary was seen")
                    #expect(safeFailures == 0, "the other primaries kept serving")
                    #expect(serverErrors == 0, "failures were connection errors (degradable), never server errors")
                    #expect(redis.node(forKey: doomed)?.description == replica)
                    #expect(!redis.primaries().contains(victim))
                    try await redis.set(doomed, to: "after the failover")
                    #expect(try await redis.getString(doomed) == "after the failover")
                    print("failover: slot served again \(recovery) after SIGKILL; \(doomedFailures) commands failed fast meanwhile")
                }
            }
        }
    }
}
