import BraidCore
import Foundation
import Synchronization

/// The group-sequential design of every experiment (`interleaving.sequential`, an arm's
/// `sequential` over it; an experiment no arm names gets the section's), and the reading of an
/// outcome with it: ``read(_:store:)`` takes the looks that are due, records them in the
/// experiment store, and fills ``ExperimentOutcome/sequential`` and each pair's reading.
///
/// Designs are computed once, at start (a few hundred numerical integrations each, cheap enough
/// for start-up), so a design that cannot be built, or needs more decided sessions than its
/// `max_sessions`, stops the gateway before it serves.
public struct ExperimentDesigns: Sendable {
    /// What one experiment plans for, as configured.
    public struct Settings: Sendable, Hashable {
        public var margin: Double
        public var power: Double
        public var lookEvery: Int
        /// 0: no limit.
        public var maxSessions: Int

        public init(margin: Double, power: Double, lookEvery: Int, maxSessions: Int = 0) {
            self.margin = margin
            self.power = power
            self.lookEvery = lookEvery
            self.maxSessions = maxSessions
        }

        var plan: InterleavingPlan { InterleavingPlan(margin: margin, power: power, lookEvery: lookEvery) }
    }

    /// Why a design was refused; `path` is the configuration key.
    public struct DesignError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Most looks a design may have: each look is a step of the numerical integration, and a
    /// team does not read a decision more often than every 1/200 of the run.
    public static let maxLooks = 200

    /// Designs already built in this process, by settings: a design is a pure function of
    /// them, and tests build many gateways.
    private static let built = Mutex<[Settings: SequentialDesign]>([:])

    let fallback: Design
    let designs: [String: Design]

    struct Design: Sendable {
        var settings: Settings
        var sequential: SequentialDesign
    }

    /// - Parameters:
    ///   - defaults: `interleaving.sequential`.
    ///   - experiments: the arms' own settings (only those that set any), by arm name; `path`
    ///     of errors is `interleaving.arms.<name>.sequential`.
    public init(defaults: Settings, experiments: [String: Settings] = [:]) throws(DesignError) {
        func build(_ settings: Settings, path: String) throws(DesignError) -> Design {
            if let known = Self.built.withLock({ $0[settings] }) { return Design(settings: settings, sequential: known) }
            let plan = settings.plan
            guard let fixed = plan.fixedSessions else { throw DesignError(description: "\(path).margin must be between 0 and 1") }
            // K is about 2 × fixed / look_every at the default shape; refuse before integrating.
            guard fixed / max(1, settings.lookEvery) <= Self.maxLooks / 2 else {
                throw DesignError(
                    description: "\(path).look_every: \(settings.lookEvery) gives more than \(Self.maxLooks) looks for margin \(settings.margin) "
                        + "(\(fixed) decided sessions at a fixed horizon); look at least every \(fixed / (Self.maxLooks / 2) + 1)")
            }
            let design: SequentialDesign
            do {
                design = try plan.design()
            } catch {
                throw DesignError(description: "\(path): \(error)")
            }
            if settings.maxSessions > 0, design.maxSessions > settings.maxSessions {
                throw DesignError(
                    description: "\(path).max_sessions: the design for margin \(settings.margin) at power \(settings.power) needs up to "
                        + "\(design.maxSessions) decided sessions, more than \(settings.maxSessions); raise max_sessions or the margin, or lower the power")
            }
            Self.built.withLock { $0[settings] = design }
            return Design(settings: settings, sequential: design)
        }
        fallback = try build(defaults, path: "interleaving.sequential")
        var designs: [String: Design] = [:]
        for (name, settings) in experiments { designs[name] = try build(settings, path: "interleaving.arms.\(name).sequential") }
        self.designs = designs
    }

    /// The default design alone (`interleaving.sequential`'s defaults), for gateways built in code.
    public static let standard: ExperimentDesigns = {
        do {
            return try ExperimentDesigns(defaults: Settings(margin: 0.1, power: 0.8, lookEvery: 100))
        } catch {
            fatalError("the default sequential design must build: \(error)")
        }
    }()

    func design(for experiment: String) -> Design { designs[experiment] ?? fallback }

    /// Fills the sequential readings of `outcome`, recording the looks now due first.
    public func read(_ outcome: ExperimentOutcome, store: ExperimentStore) async throws -> ExperimentOutcome {
        let design = design(for: outcome.experiment)
        let sequential = design.sequential
        var outcome = outcome
        var looks: [TeamPair: [PairLook]] = [:]
        var due: [(pair: TeamPair, look: ExperimentLook)] = []
        for pair in outcome.pairs {
            let team = TeamPair(pair.first, pair.second)
            let recorded = (outcome.looks[team] ?? []).map { PairLook(look: $0.look, winsFirst: $0.winsFirst, winsSecond: $0.winsSecond) }
            looks[team] = recorded
            if let look = InterleavingMonitor.dueLook(design: sequential, recorded: recorded, winsFirst: pair.winsFirst, winsSecond: pair.winsSecond) {
                due.append((team, ExperimentLook(look: look.look, winsFirst: look.winsFirst, winsSecond: look.winsSecond)))
            }
        }
        // What is stored wins: another gateway may have recorded the same look a moment earlier.
        let stored = try await store.recordLooks(experiment: outcome.experiment, due)
        for (entry, look) in zip(due, stored) {
            looks[entry.pair, default: []].append(PairLook(look: look.look, winsFirst: look.winsFirst, winsSecond: look.winsSecond))
            outcome.looks[entry.pair, default: []].append(look)
        }
        let tests = outcome.pairs.map { InterleavingMonitor.test(design: sequential, looks: looks[TeamPair($0.first, $0.second)] ?? []) }
        let decisions = InterleavingMonitor.decisions(tests, alpha: sequential.alpha)
        for index in outcome.pairs.indices {
            let test = tests[index]
            let decision = decisions[index]
            let latest = looks[TeamPair(outcome.pairs[index].first, outcome.pairs[index].second)]?.filter { $0.look == test.looks }.first
            outcome.pairs[index].sequential = SequentialSummary(
                decision: decision.rawValue, pValue: test.pValue,
                interval: test.interval.map { max(-1, $0.lowerBound)...min(1, $0.upperBound) }, look: test.looks,
                decidedSessions: latest?.decided ?? 0,
                // The pair's own test's first decision (under Holm the pair's may come later).
                decidedAtLook: decision == .keepGoing ? nil : test.decidedAt ?? test.looks,
                bound: decision == .noDifference ? design.settings.margin : nil)
        }
        if let first = outcome.pairs.first(where: { $0.first == 0 && $0.second == 1 }), let reading = first.sequential {
            outcome.sequential = SequentialOutcome(
                design: SequentialOutcome.Design(
                    margin: design.settings.margin, power: design.settings.power, alpha: sequential.alpha, lookEvery: sequential.lookEvery,
                    looks: sequential.looks, maxSessions: sequential.maxSessions, fixedSessions: sequential.fixedSessions),
                correction: outcome.pairs.count > 1 ? "holm" : "none", reading: reading)
        }
        return outcome
    }
}
