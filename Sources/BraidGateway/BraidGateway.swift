/// BraidGateway module (filled in by later issues).
public enum BraidGateway {}
