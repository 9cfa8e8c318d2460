import ArgumentParser
import BraidCore
import BraidExperiments
import BraidSources
import Foundation

/// `braid experiment plan`: fits the simulation's user model to a team's own impression and
/// click events (an export of `braid.events`, one JSON message a line) and runs the
/// sensitivity simulation with it. This file reads the file and prints; the fit is
/// ``UserModelFit`` (BraidExperiments, pure).
struct ExperimentPlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Fit the user model to your own impression and click events; print the sessions interleaving and an A/B test need.",
        discussion: """
            Input: --events, a file of braid.event/v1 messages as the gateway publishes them to \
            braid.events, one JSON object a line (an export of the topic). Lines that are not such \
            messages are skipped and counted (the first ones named by line number on stderr); a file \
            with no valid event, or too few users, is an error (exit status 2).

            Fit (README, "Planning an experiment on your own traffic"): page-1 impressions (offset 0, \
            credit window not empty) of ids of format version 3, grouped by their user key. Sessions \
            per user: page-1 impressions per user key. Mean attractiveness: the click rate of position \
            0. Persistence and satisfaction of the cascade: from how position 1 is clicked after a click \
            or no click on position 0 (team-draft's first round shows the same two documents there in \
            random order, so the difference is position, not relevance). Propensity spread: from how \
            often two sessions of one user both click position 0. The experiment's interleaving.start \
            must be 0.

            Goodness of fit: the fit reproduces positions 0 and 1 whatever the users do, so the plan \
            checks what it did not use, the number of clicks per page-1 impression (0, 1, 2, 3, 4 or \
            more), against the fitted model's, and prints their total variation distance \
            (FIT goodness_of_fit). Above its threshold it warns on stderr that the cascade model fits \
            these clicks poorly and the plan may be off.

            Then the sensitivity simulation of `braid experiment simulate` runs with the fitted model, \
            at --margin, and prints the sessions each method needs. Rankings: the demo corpus (--db) \
            when given, else --queries-count queries whose live and cached rankings share no document.
            """)

    @Option(help: "File of braid.events messages, one JSON object a line.") var events: String
    @Option(help: "Only this experiment's events (default: all).") var experiment: String?
    @Option(help: "Relative attractiveness lift of the preferred ranking's documents the experiment must detect.")
    var margin = SensitivityParameters().margin
    @Option(help: "Ranking the users prefer: live (A) or cached (B).") var prefer = SensitivityParameters().preferred.rawValue
    @Option(help: "Level of the tests (two-sided).") var alpha = SensitivityParameters().alpha
    @Option(help: "Power the sample sizes are computed for.") var power = SensitivityParameters().power
    @Option(name: .customLong("page-size"), help: "Results per page (one page per session).") var pageSize = SensitivityParameters().pageSize
    @Option(name: .customLong("cached-size"), help: "Documents of the cached ranking B.") var cachedSize = SensitivityParameters().cachedSize
    @Option(help: "interleaving.start of the planned experiment.") var start = SensitivityParameters().start
    @Option(help: "Corpus written by `braid seed` for the rankings (default: rankings sharing no document).") var db: String?
    @Option(help: "Comma-separated queries of the corpus (default: 20 common recipe words).") var queries: String?
    @Option(name: .customLong("queries-count"), help: "Queries of the rankings sharing no document (without --db).")
    var queriesCount = 20
    @Option(help: "Seed of every random draw.") var seed: UInt64 = SensitivityParameters().seed
    @Option(name: .customLong("calibration-sessions"), help: "Sessions measuring the rates (A/B: per arm).")
    var calibrationSessions = SensitivityParameters().calibrationSessions
    @Option(name: .customLong("power-runs"), help: "Experiments per method checking the power (0: skip).") var powerRuns = 0
    @Option(help: "Parallel tasks (does not change the figures).") var workers = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard PreferredRanking(rawValue: prefer) != nil else { throw ValidationError("--prefer must be live or cached") }
        guard (1...64).contains(workers) else { throw ValidationError("--workers must be 1 to 64") }
        guard (1...1_000).contains(queriesCount) else { throw ValidationError("--queries-count must be 1 to 1000") }
        guard powerRuns >= 0 else { throw ValidationError("--power-runs must not be negative") }
        var check = SensitivityParameters()
        check.margin = margin
        check.alpha = alpha
        check.power = power
        check.pageSize = pageSize
        check.cachedSize = cachedSize
        check.start = start
        do { try check.validate() } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        let started = ContinuousClock.now
        let log = try await Self.read(events, experiment: experiment)
        Self.warn(about: log, file: events)
        guard log.events > 0 else {
            let first = log.malformed.first.map { ": line \($0.line): \($0.reason)" } ?? ""
            throw ValidationError("\(events) holds no braid.event/v1 message\(first)")
        }
        let estimate: UserModelEstimate
        do {
            estimate = try UserModelFit.fit(log.statistics)
        } catch {
            throw ValidationError("\(events): \(error.description)")
        }
        var base = SensitivityParameters()
        base.seed = seed
        base.margin = margin
        base.preferred = PreferredRanking(rawValue: prefer) ?? .cached
        base.alpha = alpha
        base.power = power
        base.pageSize = pageSize
        base.cachedSize = cachedSize
        base.start = start
        base.calibrationSessions = calibrationSessions
        base.powerRuns = powerRuns
        base.nullRuns = 0
        base.abNullRuns = 0
        let parameters = estimate.parameters(base)
        print(Self.lines(log, estimate: estimate, parameters: parameters, file: events).joined(separator: "\n"))
        if let warning = Self.warning(estimate.goodnessOfFit, file: events) { FileHandle.standardError.write(Data(warning.utf8)) }

        let rankings = try await Self.rankings(db: db, queries: queries, queriesCount: queriesCount, parameters: parameters)
        let report = try await SensitivitySimulation(parameters: parameters, queries: rankings, workers: workers).run()
        print(Self.lines(report, parameters: parameters, seconds: ExperimentSimulateCommand.seconds(since: started)).joined(separator: "\n"))
    }

    /// Reads `path` line by line into an ``EventLog``, on a thread of its own (file reads block).
    static func read(_ path: String, experiment: String?) async throws -> EventLog {
        try await runOffPool { try readBlocking(path, experiment: experiment) }
    }

    static func readBlocking(_ path: String, experiment: String?) throws -> EventLog {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ValidationError("cannot open --events \(path)") }
        defer { try? handle.close() }
        var log = EventLog(experiment: experiment)
        var pending = Data()
        var line = 1
        do {
            while let chunk = try handle.read(upToCount: 1 << 22), !chunk.isEmpty {
                pending.append(chunk)
                guard let last = pending.lastIndex(of: 0x0A) else { continue }
                let complete = pending[pending.startIndex...last]
                log.add(text: complete, firstLine: line)
                line += complete.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                pending = Data(pending[pending.index(after: last)...])
            }
        } catch {
            throw ValidationError("cannot read --events \(path): \(error)")
        }
        if !pending.isEmpty { log.add(text: pending, firstLine: line) }
        return log
    }

    static func warn(about log: EventLog, file: String) {
        guard log.malformedCount > 0 else { return }
        var text = "warning: \(file): skipped \(log.malformedCount) malformed line(s) of \(log.lines)\n"
        for bad in log.malformed { text += "  line \(bad.line): \(String(bad.reason.map { $0.isNewline || $0.isASCII && $0.asciiValue! < 0x20 ? " " : $0 }.prefix(200)))\n" }
        if log.malformedCount > log.malformed.count { text += "  …\n" }
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// The corpus's rankings, or rankings sharing no document.
    static func rankings(db: String?, queries: String?, queriesCount: Int, parameters: SensitivityParameters) async throws -> [QueryRankings] {
        guard let db else {
            return try await QueryRankings.load(
                queries: DisjointRankings.queries(queriesCount), source: DisjointRankings(), cachedSize: parameters.cachedSize,
                pageSize: parameters.pageSize, preferred: parameters.preferred)
        }
        guard FileManager.default.fileExists(atPath: db) else {
            throw ValidationError("no corpus at \(db): write one with `braid seed --db \(db)` (or leave out --db)")
        }
        let list = queries.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
            ?? ExperimentSimulateCommand.defaultQueries
        let source = SQLiteSearchSource(path: db)
        do {
            let rankings = try await QueryRankings.load(
                queries: list, source: CorpusRankingSource(source: source), cachedSize: parameters.cachedSize,
                pageSize: parameters.pageSize, preferred: parameters.preferred)
            try await source.shutdown()
            return rankings
        } catch {
            try? await source.shutdown()
            throw error
        }
    }

    static func lines(_ log: EventLog, estimate e: UserModelEstimate, parameters p: SensitivityParameters, file: String) -> [String] {
        func fixed(_ value: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }
        let s = e.statistics
        return [
            "events \(file): \(log.lines) lines, \(log.malformedCount) malformed (skipped), \(log.events) events"
                + (log.experiment.map { ", \(log.otherExperiments) of experiments other than \($0)" } ?? ""),
            "fitted on \(s.impressions) page-1 impressions, \(s.users) users (\(s.usersWithTwoSessions) with two sessions or more); "
                + "left out: \(s.laterPages) later pages, \(s.withoutOffset) impressions without offset, \(s.withoutWindow) without credit window, "
                + "\(s.clicksWithoutImpression) impressions seen only by clicks; \(s.anonymous) without user key (click model only)",
            "FIT sessions_per_user \(fixed(e.sessionsPerUser, 2)) (simulated as \(p.sessionsPerUser))",
            "FIT propensity_spread \(fixed(e.propensitySpread))",
            "FIT persistence \(fixed(e.persistence))",
            "FIT satisfaction \(fixed(e.satisfaction))",
            "FIT mean_attractiveness \(fixed(e.meanAttractiveness)) (simulated range \(fixed(p.attractiveness.lowerBound))–\(fixed(p.attractiveness.upperBound)))",
            goodnessOfFitLine(e.goodnessOfFit),
        ]
    }

    /// The goodness of fit (``ClickCountFit``): how far the fitted model's clicks per page are
    /// from the traffic's, which the fit did not use.
    static func goodnessOfFitLine(_ fit: ClickCountFit) -> String {
        "FIT goodness_of_fit \(String(format: "%.4f", fit.totalVariation)) (clicks per page against the fitted model's, total variation over "
            + "\(fit.impressions) impressions; poor above \(String(format: "%.4f", fit.threshold)))"
    }

    /// The warning printed (on stderr) when the fit is poor; nil when it is not.
    static func warning(_ fit: ClickCountFit, file: String) -> String? {
        guard fit.isPoor else { return nil }
        func shares(_ values: [Double]) -> String {
            values.map { String(format: "%.3f", $0 / Double(max(1, fit.impressions))) }.joined(separator: " ")
        }
        return "warning: \(file): the cascade model fits these clicks poorly; its plan may be off (goodness_of_fit "
            + "\(String(format: "%.4f", fit.totalVariation)) above \(String(format: "%.4f", fit.threshold))). Shares of page-1 impressions "
            + "with 0, 1, 2, 3, 4+ clicks: observed \(shares(fit.observed.map(Double.init))), fitted \(shares(fit.expected))\n"
    }

    static func lines(_ report: SensitivityReport, parameters p: SensitivityParameters, seconds: Double) -> [String] {
        func count(_ value: Int?) -> String { value.map(String.init) ?? "none (no effect)" }
        var lines = [
            "at margin \(p.margin) for \(p.preferred.rawValue), \(Int((p.power * 100).rounded())) % power, alpha \(p.alpha); "
                + "\(report.queries) queries, page \(p.pageSize), B \(p.cachedSize) documents, start \(p.start):",
            "PLAN interleaving.sessions \(count(report.interleaving.sessions))",
            "PLAN ab.sessions \(count(report.abTest.sessions)) (the cached ranking alone against the live one, users randomized)",
            "PLAN ab_blended.sessions \(count(report.abBlended.sessions)) (the page with B blended in against the live one)",
        ]
        if let ratio = report.abOverInterleaving { lines.append("PLAN ab_sessions.over_interleaving \(String(format: "%.2f", ratio))") }
        if let power = report.interleaving.empiricalPower { lines.append("PLAN interleaving.empirical_power \(String(format: "%.3f", power))") }
        if let power = report.abTest.empiricalPower { lines.append("PLAN ab.empirical_power \(String(format: "%.3f", power))") }
        lines.append("PLAN seconds \(String(format: "%.1f", seconds))")
        return lines
    }
}
