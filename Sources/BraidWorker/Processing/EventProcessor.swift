import BraidContracts
import BraidCore
import BraidExperiments
import BraidObservability
import BraidPrecompute
import Foundation
import Metrics

/// Processes one message of `braid.events`: decode, then credit. Counts what crediting did in
/// `braid_worker_events_total{outcome}`: `credited`, `duplicate`, `not_evidence`, `late`.
public struct EventProcessor: MessageProcessor {
    public let store: ExperimentStore
    let layouts: LayoutExperimentStore

    public init(store: ExperimentStore) {
        self.store = store
        self.layouts = LayoutExperimentStore(sharing: store)
    }

    public func process(_ value: [UInt8]) async throws(ProcessingFailure) -> (kind: String, outcome: MaterializeOutcome) {
        let event: ExperimentEvent
        do {
            event = try ExperimentEvent.decode(Data(value))
        } catch {
            throw .permanent("invalid event: \(error.reason)")
        }
        do {
            let credit = event.type.isLayout ? try await layouts.apply(event) : try await store.apply(event)
            Counter(.workerEvents, dimensions: [("outcome", credit.rawValue)]).increment()
            return (event.type.rawValue, credit == .credited ? .written(documents: 1) : .stale)
        } catch {
            throw ProcessingFailure.classify(error)
        }
    }

    /// Redis (a PING to every primary), the only dependency of event credit.
    public func probe(_ dependency: ProcessingFailure.Dependency) async -> Bool? {
        dependency == .redis ? await DependencyProbes.redis(store.redis) : nil
    }
}
