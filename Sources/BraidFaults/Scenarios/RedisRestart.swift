import BraidHarness
import BraidDevSupport
import Foundation

/// `redis-restart`: a gateway on a Redis of its own under a steady page-1 load for 20 s;
/// Redis is stopped 5 s into it, and restarted empty (no persistence) 5 s later. Passes when
/// no page was a non-200, some were degraded, and a page interleaves again after the restart
/// without a restart of the gateway.
public struct RedisRestart: FaultScenario {
    public let name = "redis-restart"
    public var load: Duration = .seconds(20)
    public var stopAfter: Duration = .seconds(5)
    public var down: Duration = .seconds(5)

    public init() {}

    public func run(on stack: FaultStack) async throws -> FaultResult {
        try await ScenarioWorld.with(stack, scenario: name) { world in
            let redis = try await RedisServer.start(in: world.run)
            let fixture = try await world.fixture(redisURL: redis.url)
            let gateway = try await fixture.startGateway()
            // A snapshot to interleave with ("curry 0", computed inline on its first page).
            _ = await PageLoad(baseURL: gateway.baseURL, prefix: "curry", count: 1).run(for: .seconds(3))

            let load = PageLoad(baseURL: gateway.baseURL, prefix: "curry", count: 1, errors: world.file("redis-pages.err"))
            async let pages = load.run(for: self.load)
            try await Task.sleep(for: stopAfter)
            await redis.stop()
            try await Task.sleep(for: down)
            _ = try await RedisServer.start(in: world.run, port: redis.port)
            let restartedAt = ContinuousClock.now
            var recovered = false
            for _ in 0..<100 {
                if let response = try? await HTTPProbe.request("\(gateway.baseURL)/v1/search?q=curry&per_page=10"), response.status == 200,
                    let page = ServedPage(json: response.body), !page.degraded, page.snapshot != nil
                {
                    recovered = true
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            var result = FaultResult()
            result.figure("seconds_until_interleaved_again", Seconds.tenths(.now - restartedAt))
            let counts = await pages
            result.figure("pages", counts.pages)
            result.figure("non_200_pages", counts.non200)
            result.figure("degraded_pages", counts.degraded)
            result.verdict(
                counts.non200 == 0 && counts.degraded > 0 && recovered,
                "non-200 \(counts.non200), degraded \(counts.degraded), recovered \(recovered ? 1 : 0)")
            return result
        }
    }
}
