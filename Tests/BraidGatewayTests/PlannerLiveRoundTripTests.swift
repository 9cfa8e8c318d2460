import BraidConfig
import BraidCore
import BraidHarness
import BraidTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The planner on events of the real system: a simulated population of known click behaviour
/// reads real team-draft pages of a gateway over HTTP and posts their impressions and clicks to
/// `/v1/events`; `braid.events` is exported with kcat, and `braid experiment plan` fits the
/// export. Its fit must recover the population's parameters.
///
/// 1,500 users × 5 sessions (7,500 pages; a few minutes of a debug build on 2 cores). At that size
/// the simulated round trip (`braid experiment round-trip --users 1500`, seeds 1–9, release build,
/// 2026-11-28) erred by at most 0.123 on any parameter (the propensity spread; the others at most
/// 0.094), so the bound is the issue's 15 %.
@Suite("Planner round trip through a gateway, Kafka and kcat", .serialized, .integration)
struct PlannerLiveRoundTripTests {
    static let users = 1_500
    static let sessionsPerUser = 5
    static let tolerance = 0.15
    /// The population's truth: SensitivityParameters' defaults.
    static let spread = 0.5, persistence = 0.9, satisfaction = 0.5, attractiveness = 0.1...0.4

    static let queries = ["curry", "pasta", "chicken", "cake", "salmon", "soup", "rice", "salad", "bread", "tofu"]

    @Test("braid experiment plan recovers the parameters of users who clicked real pages")
    func thePlanRecoversThePopulationsParameters() async throws {
        let fixture = try await WorkerFixture(documents: 2_000, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        // One team-draft arm starting at position 0: the fit reads the first drafted round.
        configuration.interleaving.arms = [.init(name: "planner-live", weight: 100, mode: .teamDraft)]
        configuration.gateway.rateLimits.enabled = false
        let posted = try await GatewayHarness.with(configuration, live: true) { client, _ in
            try await Self.population(client)
        }
        #expect(posted.pages >= Self.users * Self.sessionsPerUser * 9 / 10, "pages with an impression id: \(posted.pages)")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(TestEnvironment.uniqueName("planner-live"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let export = folder.appendingPathComponent("events.jsonl")
        let lines = try await runOffPool { try Self.exportWithKcat(brokers: fixture.brokers, topic: fixture.eventsTopic, to: export) }
        #expect(lines == posted.events, "kcat exported \(lines) of the \(posted.events) events posted")

        let plan = try await runOffPool {
            try BraidBinary.run(["experiment", "plan", "--events", export.path, "--calibration-sessions", "2000", "--workers", "1"])
        }
        #expect(plan.status == 0, "\(plan.stderr)")
        let fitted = Dictionary(uniqueKeysWithValues: plan.stdout.split(separator: "\n").compactMap { line -> (String, Double)? in
            let parts = line.split(separator: " ")
            guard parts.count >= 3, parts[0] == "FIT", let value = Double(parts[2]) else { return nil }
            return (String(parts[1]), value)
        })
        let truth: [(String, Double)] = [
            ("sessions_per_user", Double(posted.pages) / Double(Self.users)), ("propensity_spread", Self.spread),
            ("persistence", Self.persistence), ("satisfaction", Self.satisfaction),
            ("mean_attractiveness", (Self.attractiveness.lowerBound + Self.attractiveness.upperBound) / 2),
        ]
        for (name, value) in truth {
            let fit = try #require(fitted[name], "no FIT \(name) line: \(plan.stdout)")
            let error = abs(fit - value) / value
            // The figures, for whoever reads the log: true, fitted, relative error.
            print("FIGURE planner_live_round_trip.\(name) \(value) \(fit) \(String(format: "%.4f", error))")
            #expect(error <= Self.tolerance, "\(name): true \(value), fitted \(fit), relative error \(error)")
        }
    }

    struct Posted: Sendable {
        var pages = 0
        var events = 0
    }

    /// Each user: a propensity factor (log-normal, mean 1); each session: page 1 of a query of its
    /// own, read top down as the cascade reads (a result read is clicked with its attractiveness,
    /// drawn per session and result and scaled by the factor; after a click the user leaves with
    /// `satisfaction`, after none reads on with `persistence`). 8 users at a time.
    static func population(_ client: any TestClientProtocol) async throws -> Posted {
        try await withThrowingTaskGroup(of: Posted.self) { group in
            for lane in 0..<8 {
                group.addTask {
                    var random = SeededGenerator(seed: UInt64(49 + lane))
                    var posted = Posted()
                    for user in stride(from: lane, to: users, by: 8) {
                        let factor = propensity(using: &random)
                        var events: [[String: Any]] = []
                        for session in 0..<sessionsPerUser {
                            let query = queries[(user + session) % queries.count]
                            let page = try await client.json("/v1/search?q=\(query)&per_page=10&session=planner-user-\(user)")
                            guard let id = page["impression_id"] as? String, let items = page["items"] as? [[String: Any]] else { continue }
                            posted.pages += 1
                            events.append(["type": "impression", "impression_id": id])
                            for item in items {
                                guard let position = item["position"] as? Int else { break }
                                let base = attractiveness.lowerBound + (attractiveness.upperBound - attractiveness.lowerBound) * Double.random(in: 0..<1, using: &random)
                                if Double.random(in: 0..<1, using: &random) < min(1, base * factor) {
                                    events.append(["type": "click", "impression_id": id, "position": position])
                                    if Double.random(in: 0..<1, using: &random) < satisfaction { break }
                                } else if Double.random(in: 0..<1, using: &random) >= persistence {
                                    break
                                }
                            }
                        }
                        guard !events.isEmpty else { continue }
                        let body = try JSONSerialization.data(withJSONObject: ["events": events])
                        let accepted = try JSONBody(try await client.execute(uri: "/v1/events", method: .post, body: ByteBuffer(bytes: body)))
                        try #require(accepted["accepted"] as? Int == events.count, "\(accepted.object)")
                        posted.events += events.count
                    }
                    return posted
                }
            }
            return try await group.reduce(into: Posted()) { total, lane in
                total.pages += lane.pages
                total.events += lane.events
            }
        }
    }

    /// exp(σZ − σ²/2), Z standard normal by Box–Muller.
    static func propensity(using random: inout SeededGenerator) -> Double {
        let radius = (-2 * log(1 - Double.random(in: 0..<1, using: &random))).squareRoot()
        let z = radius * cos(2 * Double.pi * Double.random(in: 0..<1, using: &random))
        return exp(spread * z - spread * spread / 2)
    }

    /// `kcat -C -e` of the whole topic into `file`; returns its lines.
    static func exportWithKcat(brokers: String, topic: String, to file: URL) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Toolchain.find("kcat"))
        process.arguments = ["-C", "-b", brokers, "-t", topic, "-e", "-o", "beginning", "-q"]
        process.environment = Toolchain.childEnvironment
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let output = try FileHandle(forWritingTo: file)
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw HarnessError.missingTool("kcat", hint: "kcat exited with \(process.terminationStatus)") }
        return try String(contentsOf: file, encoding: .utf8).split(separator: "\n").count
    }
}
