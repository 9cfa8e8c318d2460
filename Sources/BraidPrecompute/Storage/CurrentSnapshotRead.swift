import BraidContracts
import BraidCore

/// What one read of a ranking's current snapshot found
/// (``PrecomputeStore/currentSnapshot(ranking:query:unless:)``).
public enum CurrentSnapshotRead: Sendable {
    /// No pointer: there is no snapshot for this ranking and query.
    case none
    /// The pointer names the version the caller said it holds; its documents were not sent.
    case held(version: Int64)
    /// The pointer's version and its snapshot, with the size of its stored JSON.
    case read(RankingSnapshot, bytes: Int)
    /// The pointer names a version that has expired (it moved on between the writes).
    case expired(version: Int64)
}
