import ArgumentParser
import BraidContracts
import BraidCore
import BraidExperiments
import Foundation

/// `braid experiment round-trip`: the planner's calibration check. Simulates users of known
/// parameters, turns their sessions into the events the gateway publishes (version-3
/// impression ids with user keys, signed and verified), parses every line back as
/// `braid experiment plan` does and fits the user model; prints each parameter true and fitted
/// and `RATIO evaluation.calibration_error`, the worst relative error.
struct ExperimentRoundTripCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "round-trip",
        abstract: "Simulate events from known user parameters, fit them back like `plan`, print the worst relative error.",
        discussion: """
            Users as in `braid experiment simulate` (the same flags and defaults): --users users of \
            --sessions-per-user page-1 sessions each on team-draft pages of the rankings (rankings \
            sharing no document, --queries-count queries). Every page gets a version-3 impression id \
            with the user's key (signed with a fixed test key); its impression and clicks become \
            braid.event/v1 messages encoded as on braid.events, written to --write-events when given \
            (a file `braid experiment plan --events` reads), and parsed back line by line. Prints \
            FIGURE evaluation.calibration.<parameter> <true> <fitted> <relative error> and \
            RATIO evaluation.calibration_error, the worst relative error (target ≤ 0.10).
            """)

    @Option(help: "Simulated users.") var users = 40_000
    @Option(name: .customLong("sessions-per-user"), help: "Page-1 sessions of every user.")
    var sessionsPerUser = SensitivityParameters().sessionsPerUser
    @Option(name: .customLong("propensity-spread"), help: "Log standard deviation of a user's click-propensity factor.")
    var propensitySpread = SensitivityParameters().propensitySpread
    @Option(help: "P(read the next result | no click).") var persistence = SensitivityParameters().persistence
    @Option(help: "P(leave | click).") var satisfaction = SensitivityParameters().satisfaction
    @Option(name: .customLong("attractiveness-min"), help: "Lowest base click probability of a result.")
    var attractivenessMin = SensitivityParameters().attractiveness.lowerBound
    @Option(name: .customLong("attractiveness-max"), help: "Highest base click probability of a result.")
    var attractivenessMax = SensitivityParameters().attractiveness.upperBound
    @Option(help: "Attractiveness lift of the cached ranking's documents in the simulated traffic.") var margin = 0.0
    @Option(name: .customLong("queries-count"), help: "Queries of the rankings.") var queriesCount = 20
    @Option(help: "Seed of every random draw.") var seed: UInt64 = SensitivityParameters().seed
    @Option(name: .customLong("write-events"), help: "Also write the events here, one JSON message a line.") var writeEvents: String?
    @Option(help: "Parallel tasks (does not change the figures).") var workers = ProcessInfo.processInfo.activeProcessorCount

    var parameters: SensitivityParameters {
        var parameters = SensitivityParameters()
        parameters.seed = seed
        parameters.margin = margin
        parameters.sessionsPerUser = sessionsPerUser
        parameters.propensitySpread = propensitySpread
        parameters.persistence = persistence
        parameters.satisfaction = satisfaction
        parameters.attractiveness = min(attractivenessMin, attractivenessMax)...max(attractivenessMin, attractivenessMax)
        parameters.calibrationSessions = max(parameters.calibrationSessions, 1_000 * sessionsPerUser)
        return parameters
    }

    func validate() throws {
        guard (UserModelFit.minimumUsers...10_000_000).contains(users) else {
            throw ValidationError("--users must be \(UserModelFit.minimumUsers) to 10000000")
        }
        guard sessionsPerUser >= 2 else { throw ValidationError("--sessions-per-user must be at least 2 (the spread is fitted across a user's sessions)") }
        guard attractivenessMin <= attractivenessMax else { throw ValidationError("--attractiveness-min must not exceed --attractiveness-max") }
        guard (1...1_000).contains(queriesCount) else { throw ValidationError("--queries-count must be 1 to 1000") }
        guard (1...64).contains(workers) else { throw ValidationError("--workers must be 1 to 64") }
        do { try parameters.validate() } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        let started = ContinuousClock.now
        let p = parameters
        let rankings = try await QueryRankings.load(
            queries: DisjointRankings.queries(queriesCount), source: DisjointRankings(), cachedSize: p.cachedSize, pageSize: p.pageSize,
            preferred: p.preferred)
        let traffic = try SimulatedTraffic(
            parameters: p, queries: rankings, users: users, codec: ImpressionCodec(key: Array("braid-planner-round-trip".utf8)))
        let chunks = min(workers, users)
        let bounds = (0...chunks).map { $0 * users / chunks }
        let parts = try await withThrowingTaskGroup(of: (Int, [Data]).self) { group in
            for chunk in 0..<chunks {
                group.addTask { (chunk, try traffic.events(users: bounds[chunk]..<bounds[chunk + 1])) }
            }
            var parts: [(Int, [Data])] = []
            for try await part in group { parts.append(part) }
            return parts.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
        var text = Data()
        for line in parts {
            text.append(line)
            text.append(0x0A)
        }
        if let writeEvents {
            do {
                try text.write(to: URL(fileURLWithPath: writeEvents))
            } catch {
                throw ValidationError("cannot write --write-events \(writeEvents): \(error)")
            }
        }
        var log = EventLog()
        log.add(text: text)
        let estimate: UserModelEstimate
        do {
            estimate = try UserModelFit.fit(log.statistics)
        } catch {
            throw ValidationError("the round trip's events did not fit: \(error.description)")
        }
        let check = CalibrationCheck(truth: p, fitted: estimate)
        func fixed(_ value: Double, _ digits: Int = 4) -> String { String(format: "%.\(digits)f", value) }
        var lines = [
            "round trip: \(users) users × \(p.sessionsPerUser) sessions, seed \(p.seed), margin \(p.margin); "
                + "\(log.events) events (\(log.malformedCount) malformed), \(estimate.statistics.impressions) page-1 impressions"
                + (writeEvents.map { ", written to \($0)" } ?? ""),
        ]
        for row in check.rows {
            lines.append("FIGURE evaluation.calibration.\(row.name) \(fixed(row.truth)) \(fixed(row.fitted)) \(fixed(row.relativeError))")
        }
        lines.append("FIGURE evaluation.calibration.seconds \(fixed(ExperimentSimulateCommand.seconds(since: started), 1))")
        lines.append("RATIO evaluation.calibration_error \(fixed(check.worst))")
        print(lines.joined(separator: "\n"))
    }
}
