/// Keeps secrets out of what Braid prints.
public enum Redaction {
    /// `redis://user:secret@host:6379` → `redis://***@host:6379`, wherever URLs appear in
    /// `text` (the user too: with Redis a lone user part is the password).
    public static func urlCredentials(in text: String) -> String {
        text.replacing(#/(?<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)[^/\s@'"]+@/#) { match in "\(match.output.scheme)***@" }
    }
}
