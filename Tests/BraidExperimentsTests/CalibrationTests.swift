import BraidContracts
import BraidCore
import BraidExperiments
import BraidTestSupport
import Foundation
import Testing

@Suite("experiment planner calibration", .computeHeavy)
struct CalibrationTests {
    static let codec = ImpressionCodec(key: Array("calibration-test-key".utf8))

    /// The events of `users` simulated users at `parameters`, as the gateway encodes them, in two
    /// parallel chunks on threads of their own: seconds of computation on the cooperative pool
    /// would starve the tests that run beside these.
    static func traffic(_ parameters: SensitivityParameters, users: Int) async throws -> [Data] {
        let rankings = try await QueryRankings.load(
            queries: DisjointRankings.queries(10), source: DisjointRankings(), cachedSize: parameters.cachedSize,
            pageSize: parameters.pageSize, preferred: parameters.preferred)
        let traffic = try SimulatedTraffic(parameters: parameters, queries: rankings, users: users, codec: codec)
        async let first = runOffPool { try traffic.events(users: 0..<(users / 2)) }
        async let second = runOffPool { try traffic.events(users: (users / 2)..<users) }
        return try await first + second
    }

    static func log(_ lines: [Data]) -> EventLog {
        var text = Data()
        for line in lines {
            text.append(line)
            text.append(0x0A)
        }
        var log = EventLog()
        log.add(text: text)
        return log
    }

    @Test func theFitRecoversKnownParametersFromTheGatewaysEvents() async throws {
        var truth = SensitivityParameters()
        truth.seed = 7
        truth.margin = 0
        let lines = try await Self.traffic(truth, users: 20_000)
        // The lines are what braid.events carries: version-3 user keys, decodable by the workers' decoder.
        let first = try ExperimentEvent.decode(try #require(lines.first))
        #expect(first.type == .impression && first.userKind == "user" && first.userKey?.count == 16 && first.offset == 0)
        let log = try await runOffPool { Self.log(lines) }
        #expect(log.malformedCount == 0 && log.events == lines.count)
        let statistics = log.statistics
        #expect(statistics.impressions == 100_000 && statistics.users == 20_000 && statistics.anonymous == 0)
        let estimate = try UserModelFit.fit(statistics)
        let check = CalibrationCheck(truth: truth, fitted: estimate)
        #expect(check.rows.count == 5)
        for row in check.rows {
            #expect(row.relativeError <= 0.10, "\(row.name): true \(row.truth), fitted \(row.fitted)")
        }
        #expect(check.worst <= 0.10)
        // Without the cascade's correction, position 1's click rate over position 0's is not the
        // persistence: the estimator's model is what makes the figure right.
        let naive = Double(statistics.clickedSecondOnly + statistics.clickedBoth) / Double(statistics.clickedFirst)
        #expect(abs(naive - truth.persistence) / truth.persistence > 0.10, "naive \(naive)")
    }

    @Test func aPopulationOfAlikeUsersHasNoSpread() async throws {
        var truth = SensitivityParameters()
        truth.seed = 3
        truth.margin = 0
        truth.propensitySpread = 0
        truth.persistence = 0.7
        truth.satisfaction = 0.6
        let lines = try await Self.traffic(truth, users: 10_000)
        let estimate = try UserModelFit.fit(try await runOffPool { Self.log(lines).statistics })
        // σ = √log(q ÷ c₀²): near 0 the square root magnifies the noise of the ratio, hence the loose bound.
        #expect(estimate.propensitySpread < 0.25, "\(estimate)")
        #expect(abs(estimate.persistence - 0.7) / 0.7 <= 0.10 && abs(estimate.satisfaction - 0.6) / 0.6 <= 0.10, "\(estimate)")
    }

    @Test func malformedLinesAreSkippedCountedAndNamedByLine() async throws {
        var truth = SensitivityParameters()
        truth.margin = 0
        let good = try await Self.traffic(truth, users: 3)
        var text = Data()
        text.append(good[0])
        text.append(contentsOf: Array("\nnot json\n\n".utf8))
        text.append(contentsOf: Array(#"{"schema":"braid.event/v2","type":"impression","experiment":"e","impression":"ab","received_at":"2026-11-22T10:00:00Z"}"#.utf8))
        text.append(0x0A)
        text.append(contentsOf: Array(#"{"schema":"braid.event/v1","type":"click","experiment":"e","impression":"ab","received_at":"2026-11-22T10:00:00Z"}"#.utf8))
        text.append(0x0A)
        text.append(good[1])
        var log = EventLog()
        log.add(text: text)
        #expect(log.lines == 5 && log.events == 2 && log.malformedCount == 3)
        #expect(log.malformed.map(\.line) == [2, 4, 5], "blank lines count in the numbering, not as events")
        #expect(log.malformed[1].reason.contains("schema"))
        #expect(log.malformed[2].reason.contains("position"))
    }

    @Test func onlyPageOneImpressionsWithAUserKeyCountPerUser() throws {
        let at = Date(timeIntervalSince1970: 1_795_000_000)
        let key = Self.codec.userKey(user: "u1", session: nil)
        func token(_ nonce: UInt64, offset: Int = 0, user: UserKey? = key, issued: Int64? = 1_795_000_000) -> ImpressionToken {
            ImpressionToken(
                experiment: "e", offset: offset, teams: [.a, .b, .b, .a], creditWindow: 0..<100, nonce: nonce, issuedAt: issued,
                userKey: user)
        }
        var events: [Data] = []
        for nonce in UInt64(1)...3 { events.append(ExperimentEvent.make(.impression, token: token(nonce), receivedAt: at)!.encoded()) }
        events.append(ExperimentEvent.make(.click, token: token(1), position: 0, receivedAt: at)!.encoded())
        events.append(ExperimentEvent.make(.click, token: token(2), position: 0, receivedAt: at)!.encoded())
        events.append(ExperimentEvent.make(.click, token: token(2), position: 1, receivedAt: at)!.encoded())
        events.append(ExperimentEvent.make(.impression, token: token(4, offset: 10), receivedAt: at)!.encoded())
        events.append(ExperimentEvent.make(.impression, token: token(5, user: .nobody), receivedAt: at)!.encoded())
        events.append(ExperimentEvent.make(.impression, token: token(6, issued: nil), receivedAt: at)!.encoded())
        events.append(ExperimentEvent.make(.click, token: token(7), position: 1, receivedAt: at)!.encoded())
        var old = try ExperimentEvent.decode(ExperimentEvent.make(.impression, token: token(8), receivedAt: at)!.encoded())
        old.offset = nil
        events.append(old.encoded())
        let statistics = Self.log(events).statistics
        #expect(statistics.impressions == 5, "three of u1, one shown to nobody, one of an id before version 3")
        #expect(statistics.users == 1 && statistics.userSessions == 3 && statistics.sessionPairs == 6 && statistics.clickedFirstPairs == 2)
        #expect(statistics.clickedFirst == 2 && statistics.clickedBoth == 1 && statistics.clickedSecondOnly == 0)
        #expect(statistics.anonymous == 2 && statistics.laterPages == 1 && statistics.clicksWithoutImpression == 1 && statistics.withoutOffset == 1)
        #expect(throws: UserModelFitError.self, "one user is too few") { try UserModelFit.fit(statistics) }
    }

    @Test func eventsWhosePositionZeroIsAlwaysAsAreRefused() async throws {
        var truth = SensitivityParameters()
        truth.margin = 0
        truth.start = 2
        let statistics = Self.log(try await Self.traffic(truth, users: 1_000)).statistics
        #expect(statistics.firstPositionClicks > 100 && statistics.firstPositionClicksB == 0)
        #expect(throws: UserModelFitError.self) { try UserModelFit.fit(statistics) }
        truth.start = 0
        let drafted = Self.log(try await Self.traffic(truth, users: 1_000)).statistics
        #expect(throws: Never.self) { try UserModelFit.fit(drafted) }
    }

    @Test func theFittedModelDrivesTheSimulation() {
        var statistics = TrafficStatistics()
        statistics.impressions = 1_000
        statistics.clickedFirst = 250
        let estimate = UserModelEstimate(
            sessionsPerUser: 5.6, propensitySpread: 0.4, persistence: 0.8, satisfaction: 0.6, meanAttractiveness: 0.25, statistics: statistics)
        let parameters = estimate.parameters(SensitivityParameters())
        #expect(parameters.sessionsPerUser == 6 && parameters.propensitySpread == 0.4)
        #expect(parameters.persistence == 0.8 && parameters.satisfaction == 0.6)
        #expect(abs(parameters.attractiveness.lowerBound - 0.1) < 1e-12 && abs(parameters.attractiveness.upperBound - 0.4) < 1e-12)
        #expect(throws: Never.self) { try parameters.validate() }
        let high = UserModelEstimate(
            sessionsPerUser: 1, propensitySpread: 0, persistence: 1, satisfaction: 0, meanAttractiveness: 0.8, statistics: statistics)
        #expect(abs(high.attractiveness.lowerBound - 0.6) < 1e-12 && high.attractiveness.upperBound == 1, "the range stays within [0, 1] around the mean")
    }
}
