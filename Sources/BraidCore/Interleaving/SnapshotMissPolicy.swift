/// What a search request does when its query has no snapshot of B yet.
public enum SnapshotMissPolicy: String, NamedCases, Hashable {
    /// Compute B now with one call to the ranking source (once per key and gateway process,
    /// however many requests miss together), then serve the page interleaved.
    case inline
    /// Publish a materialize request and serve live-only; the session stays live-only.
    case async
}
