/// The one rule for names chosen by configuration and carried in requests and URLs —
/// rankings, feeds, components, experiments: `^[a-z0-9][a-z0-9_-]{0,63}$`. Keeping them
/// this narrow makes them safe inside Redis keys, metric labels and paths without escaping.
public enum Names {
    public static func isValid(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.enumerated().allSatisfy { index, byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || (index > 0 && (byte == 0x5F || byte == 0x2D))
        }
    }

    public static let rule = "1-64 of a-z, 0-9, '_' or '-', starting with a letter or digit"
}
