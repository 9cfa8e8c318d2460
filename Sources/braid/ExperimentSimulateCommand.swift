import ArgumentParser
import BraidExperiments
import BraidSources
import Foundation

/// `braid experiment simulate`: the sensitivity simulation (BraidExperiments) over the demo
/// corpus. This file only parses flags, opens the corpus and prints.
struct ExperimentSimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Simulate users clicking interleaved and A/B-tested pages; print the sessions each method needs.",
        discussion: """
            Rankings: for every query, the live ranking A is the corpus's relevance ranking (SQLite \
            FTS5 bm25) and the cached ranking B its popularity_boosted ranking (the default \
            `featured` ranking), first --cached-size documents. Write the corpus with `braid seed` \
            first (`make bench ONLY=evaluation` seeds 20,000 recipes).

            Sessions: a user issues one of the queries (uniformly) and sees one page of --page-size \
            results. Interleaving sessions see page 1 of the team-draft list built by Braid's page \
            planner (start --start, every document of B placed, A fetched with B excluded), credited \
            with Braid's impression token and credit window. A/B sessions see A's first page (the \
            control, half of the users) or the treatment: B's first page alone (evaluation.ab, \
            the rankings compared as rankings) or, reported as well, the page Braid serves with B \
            blended in, pattern AB from --start (evaluation.ab_blended, the change a team would ship).

            Users: a cascade click model with position bias (the dependent click model): read from \
            the top; a result read is clicked with its attractiveness; after a click leave with \
            probability --satisfaction, else read on; after no click read on with probability \
            --persistence. A result's attractiveness is drawn per session and result uniformly from \
            [--attractiveness-min, --attractiveness-max], multiplied by 1 + --margin when the \
            document belongs to the preferred ranking (--prefer: B's placed documents, or as many \
            of A's first documents), and by the user's click-propensity factor, at most 1.

            Users and randomization: every user has --sessions-per-user sessions and a propensity \
            factor drawn once from a log-normal with mean 1 and log standard deviation \
            --propensity-spread (0: all users alike). Both methods see the same population. An A/B \
            test randomizes users (a user keeps her arm) and is judged by the z-test on users' \
            click-through; interleaving compares both rankings inside every impression (sign test \
            on wins). Sessions are counted on both sides. --sessions-per-user 1 \
            --propensity-spread 0 is the homogeneous model of independent sessions.

            Output: the win, tie and click-through rates measured over --calibration-sessions \
            sessions (A/B: as many per arm, on common random numbers); the sessions each method \
            needs for --power at level --alpha (sign test on interleaving wins; z-test on users' \
            click-through, both arms together), checked by simulating --power-runs \
            experiments of each size; and, with no preference, the share of --null-runs \
            interleaving experiments (--null-sessions sessions each, default the interleaving \
            size) the sign test wrongly rejects at --alpha, with window credit and, for \
            comparison, with every slot credited; and the share of --ab-null-runs A/B experiments \
            with no preference the user-level test rejects, and a per-session test would. \
            Deterministic given --seed and the corpus.

            Sequential test (README, "Reading a sequential decision"): the group-sequential test of \
            the interleaving preference, designed for --sequential-power at the margin from the \
            interleaving size, with a look every --look-every sessions up to its N_max, run over \
            --sequential-runs experiments with no preference, at --margin and at twice it: how often \
            it wrongly says A or B (and how often the sign test read at every look would), its power, \
            and its mean sessions to a decision over the fixed-horizon size.
            """)

    static let defaultQueries = [
        "curry", "rice", "chicken", "pasta", "tomato", "beef", "pork", "salmon", "mushroom", "soup",
        "salad", "potato", "egg", "cake", "bread", "apple", "garlic", "butter", "onion", "sugar",
    ]

    @Option(help: "Corpus written by `braid seed`.") var db = ".run/local/corpus.sqlite"
    @Option(help: "Comma-separated queries (default: 20 common recipe words).") var queries: String?
    @Option(help: "Seed of every random draw.") var seed: UInt64 = SensitivityParameters().seed
    @Option(help: "Relative attractiveness lift of the preferred ranking's documents.") var margin = SensitivityParameters().margin
    @Option(help: "Ranking the users prefer: live (A) or cached (B).") var prefer = SensitivityParameters().preferred.rawValue
    @Option(name: .customLong("page-size"), help: "Results per page (one page per session).") var pageSize = SensitivityParameters().pageSize
    @Option(name: .customLong("cached-size"), help: "Documents of the cached ranking B.") var cachedSize = SensitivityParameters().cachedSize
    @Option(help: "interleaving.start: slots before it are A only.") var start = SensitivityParameters().start
    @Option(name: .customLong("attractiveness-min"), help: "Lowest base click probability of a result.")
    var attractivenessMin = SensitivityParameters().attractiveness.lowerBound
    @Option(name: .customLong("attractiveness-max"), help: "Highest base click probability of a result.")
    var attractivenessMax = SensitivityParameters().attractiveness.upperBound
    @Option(help: "P(read the next result | no click).") var persistence = SensitivityParameters().persistence
    @Option(help: "P(leave | click).") var satisfaction = SensitivityParameters().satisfaction
    @Option(name: .customLong("sessions-per-user"), help: "Sessions of one user (an A/B user keeps her arm).")
    var sessionsPerUser = SensitivityParameters().sessionsPerUser
    @Option(name: .customLong("propensity-spread"), help: "Log standard deviation of a user's click-propensity factor (0: users alike).")
    var propensitySpread = SensitivityParameters().propensitySpread
    @Option(help: "Level of the tests (two-sided).") var alpha = SensitivityParameters().alpha
    @Option(help: "Power the sample sizes are computed for.") var power = SensitivityParameters().power
    @Option(name: .customLong("calibration-sessions"), help: "Sessions measuring the rates (A/B: per arm).")
    var calibrationSessions = SensitivityParameters().calibrationSessions
    @Option(name: .customLong("power-runs"), help: "Experiments per method checking the power (0: skip).")
    var powerRuns = SensitivityParameters().powerRuns
    @Option(name: .customLong("null-runs"), help: "Experiments with no preference (0: skip).") var nullRuns = SensitivityParameters().nullRuns
    @Option(name: .customLong("null-sessions"), help: "Sessions per null experiment (default: the interleaving size).")
    var nullSessions: Int?
    @Option(name: .customLong("ab-null-runs"), help: "A/B experiments of the A/B size with no preference (0: skip).")
    var abNullRuns = SensitivityParameters().abNullRuns
    @Option(name: .customLong("sequential-runs"), help: "Sequential experiments per case: no preference, --margin, twice it (0: skip).")
    var sequentialRuns = SequentialParameters().runs
    @Option(name: .customLong("look-every"), help: "Sessions between the sequential test's looks.") var lookEvery = SequentialParameters().lookEvery
    @Option(name: .customLong("sequential-shape"), help: "Shape Δ of the sequential boundaries: 0 O'Brien–Fleming to 0.5 Pocock.")
    var sequentialShape = SequentialParameters().shape
    @Option(name: .customLong("sequential-power"), help: "Power the sequential test is designed for at --margin.")
    var sequentialPower = SequentialParameters().power
    @Option(help: "Parallel tasks (does not change the figures).") var workers = ProcessInfo.processInfo.activeProcessorCount

    var parameters: SensitivityParameters {
        var parameters = SensitivityParameters()
        parameters.seed = seed
        parameters.margin = margin
        parameters.preferred = PreferredRanking(rawValue: prefer) ?? .cached
        parameters.pageSize = pageSize
        parameters.cachedSize = cachedSize
        parameters.start = start
        parameters.attractiveness = min(attractivenessMin, attractivenessMax)...max(attractivenessMin, attractivenessMax)
        parameters.persistence = persistence
        parameters.satisfaction = satisfaction
        parameters.sessionsPerUser = sessionsPerUser
        parameters.propensitySpread = propensitySpread
        parameters.alpha = alpha
        parameters.power = power
        parameters.calibrationSessions = calibrationSessions
        parameters.powerRuns = powerRuns
        parameters.nullRuns = nullRuns
        parameters.nullSessions = nullSessions
        parameters.abNullRuns = abNullRuns
        return parameters
    }

    var sequential: SequentialParameters {
        var sequential = SequentialParameters()
        sequential.runs = sequentialRuns
        sequential.lookEvery = lookEvery
        sequential.shape = sequentialShape
        sequential.power = sequentialPower
        return sequential
    }

    var queryList: [String] {
        queries.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } } ?? Self.defaultQueries
    }

    func validate() throws {
        guard PreferredRanking(rawValue: prefer) != nil else { throw ValidationError("--prefer must be live or cached") }
        guard attractivenessMin <= attractivenessMax else { throw ValidationError("--attractiveness-min must not exceed --attractiveness-max") }
        guard !queryList.isEmpty else { throw ValidationError("--queries names no query") }
        guard (1...64).contains(workers) else { throw ValidationError("--workers must be 1 to 64") }
        do {
            try parameters.validate()
            try sequential.validate()
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        guard FileManager.default.fileExists(atPath: db) else {
            throw ValidationError("no corpus at \(db): write one with `braid seed --db \(db)` (or pass --db)")
        }
        let started = ContinuousClock.now
        let source = SQLiteSearchSource(path: db)
        let rankings: [QueryRankings]
        do {
            rankings = try await QueryRankings.load(
                queries: queryList, source: CorpusRankingSource(source: source), cachedSize: cachedSize, pageSize: pageSize,
                preferred: parameters.preferred)
        } catch {
            try? await source.shutdown()
            throw error
        }
        try await source.shutdown()
        let simulation = try SensitivitySimulation(parameters: parameters, queries: rankings, workers: workers)
        let report = try await simulation.run()
        print(Self.lines(report, parameters: parameters, corpus: db, seconds: Self.seconds(since: started)).joined(separator: "\n"))
        if sequentialRuns > 0, let fixed = report.interleaving.sessions {
            let started = ContinuousClock.now
            let measured = try await SequentialSimulation(sensitivity: simulation, parameters: sequential, fixedSessions: fixed).run()
            print(Self.lines(measured, seconds: Self.seconds(since: started)).joined(separator: "\n"))
        }
    }

    static func lines(_ report: SensitivityReport, parameters p: SensitivityParameters, corpus: String, seconds: Double) -> [String] {
        func fixed(_ value: Double, _ digits: Int = 4) -> String { String(format: "%.\(digits)f", value) }
        func count(_ value: Int?) -> String { value.map(String.init) ?? "none" }
        var lines = [
            "corpus \(corpus): \(report.queries) queries; seed \(p.seed); margin \(p.margin) for \(p.preferred.rawValue); "
                + "page \(p.pageSize), B \(p.cachedSize) documents, start \(p.start); attractiveness \(p.attractiveness.lowerBound)–\(p.attractiveness.upperBound), "
                + "persistence \(p.persistence), satisfaction \(p.satisfaction); \(p.sessionsPerUser) sessions per user, "
                + "propensity spread \(p.propensitySpread); alpha \(p.alpha), power \(p.power)",
            "FIGURE evaluation.interleaving.win_a_rate \(fixed(report.interleaving.winA))",
            "FIGURE evaluation.interleaving.win_b_rate \(fixed(report.interleaving.winB))",
            "FIGURE evaluation.interleaving.tie_rate \(fixed(report.interleaving.ties))",
            "FIGURE evaluation.interleaving.sessions \(count(report.interleaving.sessions))",
            "FIGURE evaluation.ab.control_ctr \(fixed(report.abTest.controlRate))",
            "FIGURE evaluation.ab.treatment_ctr \(fixed(report.abTest.treatmentRate))",
            "FIGURE evaluation.ab.user_ctr_variance \(fixed(report.abTest.controlVariance)) / \(fixed(report.abTest.treatmentVariance))",
            "FIGURE evaluation.ab.sessions \(count(report.abTest.sessions))",
            "FIGURE evaluation.ab_blended.treatment_ctr \(fixed(report.abBlended.treatmentRate))",
            "FIGURE evaluation.ab_blended.sessions \(count(report.abBlended.sessions))",
            "FIGURE evaluation.rankings.live_page_in_cached_share \(fixed(report.livePageInCachedShare, 3))",
        ]
        if let power = report.interleaving.empiricalPower {
            lines.append("FIGURE evaluation.interleaving.empirical_power \(fixed(power, 3)) (\(p.powerRuns) experiments)")
        }
        if let power = report.abTest.empiricalPower {
            lines.append("FIGURE evaluation.ab.empirical_power \(fixed(power, 3)) (\(p.powerRuns) experiments)")
        }
        if let icc = report.sessionClickICC {
            lines.append("FIGURE evaluation.ab.session_click_icc \(fixed(icc, 3))")
        }
        if let ratio = report.abBlendedOverInterleaving {
            lines.append("FIGURE evaluation.ab_blended_sessions.over_interleaving \(fixed(ratio, 2))")
        }
        if let null = report.null {
            lines.append("FIGURE evaluation.null.sessions_per_run \(null.sessionsPerRun) (\(null.runs) experiments)")
            lines.append("FIGURE evaluation.null_false_positive_rate.every_slot \(fixed(null.falsePositiveRateEverySlot, 3))")
        }
        if let abNull = report.abNull {
            lines.append("FIGURE evaluation.ab_null.sessions_per_run \(abNull.sessionsPerRun) (\(abNull.runs) experiments)")
            lines.append("FIGURE evaluation.ab_null.false_positive_rate.user_level \(fixed(abNull.falsePositiveRate, 3))")
            lines.append("FIGURE evaluation.ab_null.false_positive_rate.per_session \(fixed(abNull.falsePositiveRatePerSession, 3))")
        }
        lines.append("FIGURE evaluation.seconds \(fixed(seconds, 1))")
        if let ratio = report.abOverInterleaving { lines.append("RATIO evaluation.ab_sessions.over_interleaving \(fixed(ratio, 2))") }
        if let null = report.null { lines.append("RATIO evaluation.null_false_positive_rate \(fixed(null.falsePositiveRate, 3))") }
        return lines
    }

    static func lines(_ report: SequentialReport, seconds: Double) -> [String] {
        func fixed(_ value: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }
        let design = report.design
        func decisions(_ outcomes: SequentialReport.Outcomes) -> String {
            "B \(outcomes.b), A \(outcomes.a), no difference \(outcomes.noDifference) of \(outcomes.runs); "
                + "mean sessions \(fixed(outcomes.meanSessions, 0))"
        }
        return [
            "FIGURE evaluation.sequential.design \(design.looks) looks every \(design.lookEvery) sessions, N_max \(design.maxSessions) "
                + "(\(fixed(Double(design.maxSessions) / Double(report.fixedSessions), 2)) × the fixed \(report.fixedSessions)); shape \(design.shape), "
                + "power \(design.power), C \(fixed(design.efficacyConstant))",
            "FIGURE evaluation.sequential.null \(decisions(report.null))",
            "FIGURE evaluation.sequential.planned \(decisions(report.planned))",
            "FIGURE evaluation.sequential.doubled \(decisions(report.doubled))",
            "FIGURE evaluation.sequential.power \(fixed(report.power)) (twice the margin: \(fixed(report.powerDoubled)))",
            "FIGURE evaluation.peeking_fpr.sequential.clopper_pearson_upper \(fixed(report.peekingFalsePositiveRateSequentialUpper, 4)) "
                + "(95 % interval, \(report.null.runs) experiments)",
            "FIGURE evaluation.sequential.seconds \(fixed(seconds, 1))",
            "RATIO evaluation.peeking_fpr.fixed \(fixed(report.peekingFalsePositiveRateFixed))",
            "RATIO evaluation.peeking_fpr.sequential \(fixed(report.peekingFalsePositiveRateSequential, 4))",
            "RATIO evaluation.sequential_sessions.over_fixed \(fixed(report.sessionsOverFixed))",
            "RATIO evaluation.sequential_sessions.over_fixed_2x \(fixed(report.sessionsOverFixedDoubled))",
        ]
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
