/// BraidSources module (filled in by later issues).
public enum BraidSources {}
