import BraidCore
import Foundation

/// What one feed layout showed, for a layout experiment: the experiment, the feed, the variant
/// the user's bucket picked and whom it was shown to. Handed to clients as the layout's
/// `impression_id` (format version 7 of ``ImpressionCodec``) and sent back with the impression
/// and with clicks on any of the layout's components, so a click is attributed to the variant
/// the gateway served, and a client cannot claim another one: the variant is inside the signature.
public struct LayoutImpression: Sendable, Hashable {
    public var experiment: String
    public var feed: String
    public var variant: String
    /// The bucketing unit: a verified user's ``UserKey`` (kind `user`), or, when the user is
    /// only claimed (`identity.mode: query`, or an admin's request naming a user), the claimed
    /// name's key of kind `session`.
    public var userKey: UserKey
    /// The client's `session`, when it named one (``UserKey`` of kind `session`).
    public var sessionKey: UserKey?
    /// When the gateway issued it (seconds since 1970, its clock).
    public var issuedAt: Int64
    /// Makes every layout impression unique.
    public var nonce: UInt64

    public init(
        experiment: String, feed: String, variant: String, userKey: UserKey, sessionKey: UserKey? = nil, issuedAt: Int64, nonce: UInt64
    ) {
        self.experiment = experiment
        self.feed = feed
        self.variant = variant
        self.userKey = userKey
        self.sessionKey = sessionKey.flatMap { $0.kind == .nobody ? nil : $0 }
        self.issuedAt = issuedAt
        self.nonce = nonce
    }

    /// Stable id of the impression (the nonce as hex), as events carry it.
    public var id: String { String(nonce, radix: 16) }

    static let formatVersion: UInt8 = 7
}

/// An impression id of either kind: a page's or a layout's.
public enum DecodedImpression: Sendable, Hashable {
    case page(ImpressionToken)
    case layout(LayoutImpression)
}

extension ImpressionCodec {
    /// Version 7, a layout's id: version (1) · issued at (4) · user key kind (1) · user key (8) ·
    /// session key kind (1) · session key (8) · nonce (8) · feed, variant and experiment, each
    /// as length (1) and UTF-8 · the first 16 bytes of the HMAC, under the key pages' ids use.
    public func encode(_ layout: LayoutImpression) -> String {
        var bytes: [UInt8] = [LayoutImpression.formatVersion]
        bytes += Self.bigEndian(UInt64(UInt32(clamping: layout.issuedAt)), bytes: 4)
        for key in [layout.userKey, layout.sessionKey ?? .nobody] {
            bytes.append(key.kind.rawValue)
            bytes += Self.bigEndian(key.value, bytes: 8)
        }
        bytes += Self.bigEndian(layout.nonce, bytes: 8)
        for text in [layout.feed, layout.variant, layout.experiment] {
            let utf8 = Array(text.utf8.prefix(255))
            bytes += [UInt8(utf8.count)] + utf8
        }
        bytes += mac(bytes)
        return Base64URL.encode(bytes)
    }

    /// Decodes and verifies an id of either kind; never traps, whatever the input.
    public func decodeAny(_ text: String, now: Date = Date()) throws(ImpressionTokenError) -> DecodedImpression {
        let body = try verifiedBody(text, now: now)
        guard body[0] == LayoutImpression.formatVersion else { return .page(try Self.decodePage(body)) }
        return .layout(try Self.decodeLayout(body))
    }

    private static func decodeLayout(_ body: [UInt8]) throws(ImpressionTokenError) -> LayoutImpression {
        guard body.count >= 31, let userKind = UserKey.Kind(rawValue: body[5]), let sessionKind = UserKey.Kind(rawValue: body[14]),
            sessionKind != .user
        else { throw .malformed }
        func integer(_ range: Range<Int>) -> UInt64 { body[range].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        var texts: [String] = []
        var at = 31
        for _ in 0..<3 {
            guard body.count > at else { throw .malformed }
            let length = Int(body[at])
            guard body.count >= at + 1 + length, let text = String(validating: body[(at + 1)..<(at + 1 + length)], as: UTF8.self),
                Names.isValid(text)
            else { throw .malformed }
            texts.append(text)
            at += 1 + length
        }
        guard at == body.count, userKind != .nobody else { throw .malformed }
        return LayoutImpression(
            experiment: texts[2], feed: texts[0], variant: texts[1], userKey: UserKey(kind: userKind, value: integer(6..<14)),
            sessionKey: UserKey(kind: sessionKind, value: integer(15..<23)), issuedAt: Int64(integer(1..<5)), nonce: integer(23..<31))
    }

    static func bigEndian(_ value: UInt64, bytes: Int) -> [UInt8] {
        (0..<bytes).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (bytes - 1 - $0))) }
    }
}
