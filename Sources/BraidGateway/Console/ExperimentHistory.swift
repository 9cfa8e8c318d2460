import BraidCore
import BraidExperiments
import BraidPrecompute
import Foundation
import Logging
import ServiceLifecycle

/// Outcomes of the team-draft experiments sampled over time, for the console's charts. Kept
/// in this process only (Redis holds the counters, not their history): a restarted gateway
/// starts an empty chart, and each gateway process keeps its own.
public actor ExperimentHistory {
    /// One reading of an experiment's outcome.
    public struct Sample: Sendable, Hashable, Encodable {
        /// Seconds since 1970.
        public var at: Double
        public var impressions: Int
        public var winsA: Int
        public var winsB: Int
        public var ties: Int
        public var delta: Double
        public var ciLower: Double
        public var ciUpper: Double
        public var pValue: Double

        public init(at: Double, outcome: ExperimentOutcome) {
            self.at = at
            impressions = outcome.impressions
            winsA = outcome.winsA
            winsB = outcome.winsB
            ties = outcome.ties
            delta = outcome.preference.delta
            ciLower = outcome.preference.lower
            ciUpper = outcome.preference.upper
            pValue = outcome.pValue
        }

        enum CodingKeys: String, CodingKey {
            case at, impressions, ties, delta
            case winsA = "wins_a"
            case winsB = "wins_b"
            case ciLower = "ci_lower"
            case ciUpper = "ci_upper"
            case pValue = "p_value"
        }
    }

    /// The experiments sampled: the team-draft arms.
    public nonisolated let experiments: [String]
    public nonisolated let interval: Duration
    private var rings: [String: SampleRing<Sample>]

    public init(experiments: [String], samples: Int, interval: Duration) {
        self.experiments = experiments.sorted()
        self.interval = interval
        rings = Dictionary(uniqueKeysWithValues: experiments.map { ($0, SampleRing(capacity: samples)) })
    }

    /// Samples of one experiment, oldest first; nil for an experiment that is not sampled.
    public func samples(of experiment: String) -> [Sample]? {
        rings[experiment]?.elements
    }

    public func record(_ sample: Sample, for experiment: String) {
        rings[experiment]?.append(sample)
    }

    /// Reads every experiment's outcome once; one that cannot be read now is skipped.
    public func sampleOnce(events: EventService, now: Date = Date()) async {
        for experiment in experiments {
            guard let outcome = try? await events.outcome(of: experiment) else { continue }
            record(Sample(at: now.timeIntervalSince1970, outcome: outcome), for: experiment)
        }
        // Reading a layout experiment takes its due looks, so they are not skipped when nobody reads it.
        for experiment in events.layouts.keys.sorted() { _ = try? await events.layoutOutcome(of: experiment) }
    }
}

/// Samples ``ExperimentHistory`` every interval while the gateway runs.
public struct ExperimentSampler: Service {
    let history: ExperimentHistory
    let events: EventService

    public init(history: ExperimentHistory, events: EventService) {
        self.history = history
        self.events = events
    }

    /// Returns only at shutdown (a service that returns would stop the whole group).
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await history.sampleOnce(events: events)
                try? await Task.sleep(for: history.interval)
            }
        }
    }
}
