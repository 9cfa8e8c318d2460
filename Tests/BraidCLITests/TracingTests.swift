import BraidTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Traces across the queue, as deployed: real `braid publish`, `braid worker` and `braid
/// gateway` processes with `tracing.enabled` export over OTLP/HTTP to a collector started by the
/// test (``OTLPReceiver``), which decodes what arrives. The trace context crosses the real
/// broker in the `traceparent` header; spans still batched at exit are flushed (the publish
/// command before it returns, the services on SIGTERM).
@Suite("Traces across the queue", .integration)
struct TracingTests {
    static func tracingEnvironment(_ receiver: OTLPReceiver) -> [String: String] {
        ["BRAID_TRACING_ENABLED": "true", "BRAID_TRACING_OTLP_ENDPOINT": receiver.endpoint]
    }

    /// Waits until the spans received satisfy `done` (30 s at most), returning them.
    static func spans(_ receiver: OTLPReceiver, until done: ([ReceivedSpan]) -> Bool) async throws -> [ReceivedSpan] {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let spans = try receiver.spans()
            if done(spans) { return spans }
            try await Task.sleep(for: .milliseconds(200))
        }
        return try receiver.spans()
    }

    static func children(of parent: ReceivedSpan, in spans: [ReceivedSpan]) -> [ReceivedSpan] {
        spans.filter { $0.traceID == parent.traceID && $0.parentSpanID == parent.spanID }
    }

    @Test func onePublishedRequestIsOneTraceFromPublisherToRedisWrite() async throws {
        let fixture = try await WorkerFixture(partitions: 2, documents: 200, users: 5)
        let receiver = try await OTLPReceiver.start()
        defer { Task { try? await receiver.stop() } }
        let environment = fixture.environment.merging(Self.tracingEnvironment(receiver)) { $1 }
        let worker = try await fixture.startWorker("traced-worker", environment: environment)
        defer { worker.kill9() }
        try await fixture.waitUntilAssigned("traced-worker")

        let published = try BraidBinary.run(["publish", "--ranking", "featured", "--query", "curry"], environment: environment)
        #expect(published.status == 0, "\(published.stderr)")
        // Exported before the command returned: its exporter is shut down (flushed) on the way out.
        let received = try receiver.spans()
        let publishSpans = received.filter { $0.service == "braid-publish" }
        let publish = try #require(publishSpans.first, "braid publish exported no span; received \(received)")
        #expect(publishSpans.count == 1, "\(publishSpans)")
        #expect(publish.name == "publish \(fixture.requestsTopic)" && publish.kind == 4 && publish.parentSpanID.isEmpty, "\(publish)")

        let spans = try await Self.spans(receiver) { spans in
            spans.contains { $0.service == "braid-worker" && $0.name == "redis.write" && $0.traceID == publish.traceID }
        }
        worker.signal(SIGTERM)
        let workerLog = try fixture.log(of: "traced-worker")
        #expect(await worker.waitForExit(timeout: .seconds(30)) == 0, "\(workerLog)")

        let materialize = try #require(
            Self.children(of: publish, in: spans).first { $0.service == "braid-worker" },
            "no worker span is a child of the publisher's \(publish); received \(spans)")
        #expect(materialize.name == "materialize" && materialize.kind == 5, "\(materialize)")
        #expect(materialize.attributes["braid.kind"] == "ranking" && materialize.attributes["braid.outcome"] == "written", "\(materialize.attributes)")
        #expect(materialize.attributes["messaging.destination.name"] == fixture.requestsTopic)
        let writes = Self.children(of: materialize, in: spans)
        #expect(writes.map(\.name) == ["redis.write"], "\(spans)")
        #expect(writes.first?.attributes["braid.outcome"] == "written")
        #expect(Set(spans.filter { $0.traceID == publish.traceID }.map(\.service)) == ["braid-publish", "braid-worker"])
    }

    @Test func onePageIsOneTraceWithItsReadsQueriesAndRefresh() async throws {
        let fixture = try await WorkerFixture(partitions: 2, documents: 200, users: 5)
        let receiver = try await OTLPReceiver.start()
        defer { Task { try? await receiver.stop() } }
        // Snapshots are "old" after a second, so the second page asks for a refresh.
        let config = try TestEnvironment.runDirectory().appendingPathComponent("\(fixture.keyPrefix)-tracing.yaml")
        try "rankings:\n  featured:\n    profile: popularity_boosted\n    refresh_after_seconds: 1\n".write(to: config, atomically: true, encoding: .utf8)
        let gatewayPort = try FreePort.find()
        let environment = fixture.environment.merging(Self.tracingEnvironment(receiver)) { $1 }
            // Key tracking off: page 2 must read its snapshot's pointer from Redis (with tracking
            // the gateway holds it, and the page has no `snapshot.read` span to check).
            .merging(["BRAID_GATEWAY_PORT": "\(gatewayPort)", "BRAID_INTERLEAVING_MISS_POLICY": "inline", "BRAID_GATEWAY_KEY_TRACKING": "false"]) { $1 }
        let gateway = try await TestRun.start(
            BraidBinary.url.path, ["gateway", "--config", config.path], environment: environment, log: try fixture.logFile(of: "traced-gateway"))
        let worker = try await fixture.startWorker("traced-worker", arguments: ["--config", config.path], environment: environment)
        defer {
            gateway.kill9()
            worker.kill9()
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while !FreePort.accepts(port: gatewayPort) {
            let log = try fixture.log(of: "traced-gateway")
            try #require(ContinuousClock.now < deadline && !gateway.hasExited, "braid gateway did not start: \(log)")
            try await Task.sleep(for: .milliseconds(100))
        }
        try await fixture.waitUntilAssigned("traced-worker")

        // Page 1: no snapshot yet, computed inline. Page 2, once it is a second old (and the
        // one-second pointer cache has let go): read from Redis, and a refresh is published.
        let url = URL(string: "http://127.0.0.1:\(gatewayPort)/v1/search?q=curry&per_page=5&session=s1")!
        let (_, first) = try await URLSession.shared.data(from: url)
        #expect((first as? HTTPURLResponse)?.statusCode == 200)
        try await Task.sleep(for: .milliseconds(2_200))
        let (_, second) = try await URLSession.shared.data(from: url)
        #expect((second as? HTTPURLResponse)?.statusCode == 200)

        func pages(_ spans: [ReceivedSpan]) -> [ReceivedSpan] {
            spans.filter { $0.service == "braid-gateway" && $0.name == "/v1/search" }
        }
        let spans = try await Self.spans(receiver) { spans in
            let pages = pages(spans)
            return pages.count == 2 && spans.contains { $0.service == "braid-worker" && $0.name == "redis.write" && $0.traceID == pages[1].traceID }
        }
        gateway.signal(SIGTERM)
        worker.signal(SIGTERM)
        #expect(await gateway.waitForExit(timeout: .seconds(20)) == 0)
        #expect(await worker.waitForExit(timeout: .seconds(30)) == 0)

        let found = pages(spans)
        try #require(found.count == 2, "expected two page spans; received \(spans)")
        let (page1, page2) = (found[0], found[1])
        #expect(page1.kind == 2 && page1.parentSpanID.isEmpty && page1.traceID != page2.traceID, "\(found)")

        // Page 1: the snapshot reads (a miss, then the computed one), the live queries, the inline
        // miss with its Redis write under it.
        let children1 = Self.children(of: page1, in: spans)
        #expect(children1.contains { $0.name == "snapshot.read" && $0.attributes["braid.snapshot.found"] == "false" }, "\(children1)")
        #expect(children1.contains { $0.name == "snapshot.read" && $0.attributes["braid.snapshot.found"] == "true" }, "\(children1)")
        #expect(children1.contains { $0.name == "live.query" }, "\(children1)")
        let inline = try #require(children1.first { $0.name == "snapshot.miss.inline" }, "\(children1)")
        #expect(Self.children(of: inline, in: spans).map(\.name) == ["redis.write"], "\(spans)")

        // Page 2: its snapshot read and live query, and the refresh it published, which the
        // worker materialized in the page's trace.
        let children2 = Self.children(of: page2, in: spans)
        #expect(children2.contains { $0.name == "snapshot.read" && $0.attributes["braid.snapshot.found"] == "true" }, "\(children2)")
        #expect(children2.contains { $0.name == "live.query" }, "\(children2)")
        #expect(!children2.contains { $0.name == "snapshot.miss.inline" }, "\(children2)")
        let refresh = try #require(children2.first { $0.name == "publish \(fixture.requestsTopic)" }, "\(children2)")
        #expect(refresh.kind == 4)
        let materialize = try #require(Self.children(of: refresh, in: spans).first, "the worker's span is not under the refresh: \(spans)")
        #expect(materialize.service == "braid-worker" && materialize.name == "materialize", "\(materialize)")
        #expect(Self.children(of: materialize, in: spans).map(\.name) == ["redis.write"], "\(spans)")
    }
}
