/// BraidWorker module (filled in by later issues).
public enum BraidWorker {}
