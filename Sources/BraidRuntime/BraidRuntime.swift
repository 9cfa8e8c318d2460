/// BraidRuntime module (filled in by later issues).
public enum BraidRuntime {}
