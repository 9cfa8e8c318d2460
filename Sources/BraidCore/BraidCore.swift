/// BraidCore: the pure domain logic shared by the gateway, the worker and the CLI —
/// interleaving plans, cursors, query normalisation and the Redis key schema. No I/O.
public enum BraidCore {}
