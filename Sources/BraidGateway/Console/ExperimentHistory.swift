import BraidCore
import BraidExperiments
import BraidPrecompute
import Foundation
import Logging
import ServiceLifecycle

/// Outcomes of the team-draft experiments sampled over time, for the console's charts.
///
/// With a ``SharedExperimentHistory`` (the gateway's) the samples are kept in Redis, one per
/// sampling interval whichever gateway took it, so every gateway draws the same chart and a
/// restarted one draws it whole; this process's own ring answers while Redis cannot.
public actor ExperimentHistory {
    /// One reading of an experiment's outcome.
    public struct Sample: Sendable, Hashable, Codable {
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
    public nonisolated let capacity: Int
    private var rings: [String: SampleRing<Sample>]
    private let shared: SharedExperimentHistory?

    public init(experiments: [String], samples: Int, interval: Duration, shared: SharedExperimentHistory? = nil) {
        self.experiments = experiments.sorted()
        self.interval = interval
        self.capacity = samples
        self.shared = shared
        rings = Dictionary(uniqueKeysWithValues: experiments.map { ($0, SampleRing(capacity: samples)) })
    }

    /// Samples of one experiment, oldest first; nil for an experiment that is not sampled.
    public func samples(of experiment: String) async -> [Sample]? {
        guard let ring = rings[experiment] else { return nil }
        if let shared, let samples = try? await shared.samples(of: experiment) { return samples }
        return ring.elements
    }

    public func record(_ sample: Sample, for experiment: String) async {
        guard rings[experiment] != nil else { return }
        rings[experiment]?.append(sample)
        try? await shared?.record(sample, for: experiment, interval: interval, keep: capacity)
    }

    /// Reads every experiment's outcome once; one that cannot be read now is skipped.
    public func sampleOnce(events: EventService, now: Date = Date()) async {
        for experiment in experiments {
            guard let outcome = try? await events.outcome(of: experiment) else { continue }
            await record(Sample(at: now.timeIntervalSince1970, outcome: outcome), for: experiment)
        }
        // Reading a layout experiment takes its due looks, so they are not skipped when nobody reads it
        // (from when its design is solved: a gateway stopping meanwhile does not wait for that).
        guard events.layoutSolver.isSolved else { return }
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
