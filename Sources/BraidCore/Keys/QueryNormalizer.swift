import Crypto
import Foundation

/// The one query normalisation of Braid: Unicode NFKC, case folding, punctuation and symbols
/// turned into separators, whitespace collapsed to single spaces and trimmed. Workers and
/// gateways key snapshots by its output, so `ＣＵＲＲＹ　ライス` typed on a phone and
/// `curry ライス` typed on a laptop share a snapshot, and so do `curry!`, `curry!!` and
/// `curry`: punctuation does not mint a new snapshot (the live backends tokenise on it
/// anyway, so it never changed a result).
public enum QueryNormalizer {
    public static func normalize(_ query: String) -> String {
        // NFKC first (full-width letters and the ideographic space become ASCII), then fold.
        let folded = query.precomposedStringWithCompatibilityMapping
            .folding(options: [.caseInsensitive], locale: nil)
            .precomposedStringWithCompatibilityMapping
        var scalars = String.UnicodeScalarView()
        for scalar in folded.unicodeScalars { scalars.append(isSeparator(scalar) ? " " : scalar) }
        return String(scalars).split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// Punctuation (`P*`: `!`, `、`, `。`, `・`) and symbols (`S*`: `+`, `$`, emoji) separate words;
    /// letters (CJK, and marks such as the prolonged sound mark `ー`, which is a letter), digits
    /// and combining marks are kept.
    static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation, .finalPunctuation,
            .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            return true
        default:
            return false
        }
    }

    /// 64-bit hash of the normalised query (first 8 bytes of SHA-256), for cursors.
    public static func hash(_ normalized: String) -> UInt64 {
        SHA256.hash(data: Array(normalized.utf8)).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// Short hex digest used inside Redis keys: keys stay short and free of user text.
    public static func keyDigest(_ normalized: String) -> String {
        Hex.string(SHA256.hash(data: Array(normalized.utf8)).prefix(10))
    }
}
