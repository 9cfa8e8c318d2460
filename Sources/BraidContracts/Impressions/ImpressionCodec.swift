import BraidCore
import Crypto
import Foundation

/// Signs impression tokens like cursors (HMAC-SHA256, base64url).
///
/// Version 5 (written for pages of a feed component): version 4's layout with the component
/// after the age: its length (1) and `<feed>/<component>` (UTF-8, at most 129). Search pages
/// keep writing version 4, so their ids do not grow. Version 6: the same without the age
/// (version 3's layout and the component), for a component page with no snapshot age.
///
/// Version 4 (written for pages with a snapshot's age): version 3's layout with the age of
/// team 1's snapshot in seconds (2, at most 65,535) after the user key: 2 bytes (about 3
/// characters of the id) more than version 3.
///
/// Version 3 (read; written for tokens without an age): version (1) · issued at, seconds since 1970 (4) · user key kind (1) ·
/// user key (8) · then the rest of version 2 from the offset on. 13 bytes more than version 2
/// (about 18 characters of the id).
///
/// Version 2 (read; written only for tokens without an issue time): version (1) · offset (4) · slot count (1) · team count (1) · credit
/// window as first and end slot of the page (1 + 1) · team of each slot (a nibble, low nibble
/// first, ⌈count/2⌉) · nonce (8) · experiment length (1) · experiment (UTF-8) · first 16 bytes
/// of the HMAC.
///
/// Version 1 (read only; it has no credit window): version (1) · offset (4) ·
/// slot count (1) · team bits (⌈count/8⌉, bit set = B) · nonce (8) · experiment length (1) ·
/// experiment · HMAC (16). Such ids decode with no credit window (see
/// ``ImpressionToken/creditWindow``): a client that rendered a page just before a deploy is not
/// refused, and its clicks credit nothing rather than possibly crediting an A-only slot.
public struct ImpressionCodec: Sendable, RedactedDescription {
    static let macLength = 16
    /// Slots per page at most (the gateway's `per_page` limit is lower).
    public static let maxSlots = 255
    /// Longest id accepted: the largest version-5 id (255 slots, a 255-byte experiment, a
    /// 129-byte component) is 751.
    static let maxTextLength = 800

    private let key: Secret
    private let signer: KeyedMAC
    private let retired: RetiredKey?
    /// Secret of ``UserKey``s, derived from the impression key with another label; and the
    /// retired key's, so user keys of ids signed before a rotation still match their caller.
    private let userSecret: Secret
    private let retiredUserSecret: RetiredKey?

    /// Labels of the keys derived from the configured impression key.
    static let signingLabel = "braid-impression"
    static let userKeyLabel = "braid-user-key"

    /// - Parameters:
    ///   - key: `gateway.impression_key`; ids are signed with a key derived from it, and user
    ///     keys with another.
    ///   - retired: the impression key before the last rotation, still accepted until its time.
    public init(key: Secret, retired: RetiredKey? = nil) {
        self.key = key.derived(label: Self.signingLabel)
        self.signer = KeyedMAC(self.key)
        self.retired = retired.map { RetiredKey(key: $0.key.derived(label: Self.signingLabel), until: $0.until) }
        self.userSecret = key.derived(label: Self.userKeyLabel)
        self.retiredUserSecret = retired.map { RetiredKey(key: $0.key.derived(label: Self.userKeyLabel), until: $0.until) }
    }

    public init(key: some DataProtocol, retired: RetiredKey? = nil) {
        self.init(key: Secret(bytes: key), retired: retired)
    }

    /// The pseudonymous key of a verified user, or else of a session (``UserKey``).
    public func userKey(user: String?, session: String?) -> UserKey {
        UserKey.make(user: user, session: session, secret: userSecret)
    }

    /// Whether `key` is the key of verified user `user`, under the current secret or, until it
    /// retires, the previous one.
    public func isKey(_ key: UserKey, of user: String, now: Date = Date()) -> Bool {
        guard key.kind == .user else { return false }
        if UserKey.make(user: user, session: nil, secret: userSecret) == key { return true }
        guard let retiredUserSecret, retiredUserSecret.isAccepted(at: now) else { return false }
        return UserKey.make(user: user, session: nil, secret: retiredUserSecret.key) == key
    }

    public func encode(_ token: ImpressionToken) -> String {
        var bytes: [UInt8] = [2]
        if let issuedAt = token.issuedAt {
            bytes = [token.formatVersion]
            let seconds = UInt32(clamping: issuedAt)
            for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: seconds >> UInt32(shift))) }
            let user = token.userKey ?? UserKey.nobody
            bytes.append(user.kind.rawValue)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: user.value >> UInt64(shift))) }
            if let age = token.snapshotAgeSeconds {
                let clamped = UInt16(clamping: age)
                bytes += [UInt8(clamped >> 8), UInt8(truncatingIfNeeded: clamped)]
            }
            if let component = token.component {
                let name = Array(component.description.utf8)
                bytes += [UInt8(name.count)] + name
            }
        }
        let offset = UInt32(clamping: token.offset)
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: offset >> UInt32(shift))) }
        let teams = token.slotTeams.prefix(Self.maxSlots)
        bytes.append(UInt8(teams.count))
        bytes.append(UInt8(token.teamCount))
        let window = ImpressionToken.clamp(token.creditWindow ?? token.offset..<token.offset, offset: token.offset, count: teams.count)
        bytes.append(UInt8(window.lowerBound - token.offset))
        bytes.append(UInt8(window.upperBound - token.offset))
        var nibbles = [UInt8](repeating: 0, count: (teams.count + 1) / 2)
        for (index, team) in teams.enumerated() { nibbles[index / 2] |= UInt8(team & 0xF) << UInt8(4 * (index % 2)) }
        bytes += nibbles
        bytes += Self.trailer(nonce: token.nonce, experiment: token.experiment)
        bytes += mac(bytes)
        return Base64URL.encode(bytes)
    }

    /// Decodes and verifies a page's id, versions 1 to 6; never traps, whatever the input. Whether an old
    /// id is still evidence is for the caller to decide (``ImpressionValidity``).
    /// A layout's id (version 7, ``decodeAny(_:now:)``) is `unsupportedVersion(7)` here.
    public func decode(_ text: String, now: Date = Date()) throws(ImpressionTokenError) -> ImpressionToken {
        try Self.decodePage(try verifiedBody(text, now: now))
    }

    /// The id's bytes without the signature, once the signature is checked.
    func verifiedBody(_ text: String, now: Date) throws(ImpressionTokenError) -> [UInt8] {
        guard text.utf8.count <= Self.maxTextLength, let bytes = Base64URL.decode(text), bytes.count > Self.macLength + 15 else {
            throw .malformed
        }
        let body = Array(bytes.dropLast(Self.macLength))
        let signature = Array(bytes.suffix(Self.macLength))
        guard Self.same(mac(body), signature) || signedByRetiredKey(body, signature, now: now) else { throw .badSignature }
        return body
    }

    static func decodePage(_ body: [UInt8]) throws(ImpressionTokenError) -> ImpressionToken {
        switch body[0] {
        case 1: return try Self.decodeVersion1(body)
        case 2: return try Self.decodeVersion2(body, from: 1)
        case 3: return try Self.decodeVersion3(body)
        case 4: return try Self.decodeVersion3(body, age: true)
        case 5: return try Self.decodeVersion3(body, age: true, component: true)
        case 6: return try Self.decodeVersion3(body, component: true)
        case let version: throw .unsupportedVersion(version)
        }
    }

    /// Version 3; with `age` version 4 (two bytes of age after the user key); with `age` and
    /// `component` version 5 (the component after the age); with `component` alone version 6.
    private static func decodeVersion3(
        _ body: [UInt8], age: Bool = false, component hasComponent: Bool = false
    ) throws(ImpressionTokenError) -> ImpressionToken {
        var rest = age ? 16 : 14
        var component: FeedComponentName?
        if hasComponent {
            guard body.count > rest else { throw .malformed }
            let length = Int(body[rest])
            guard body.count >= rest + 1 + length, let text = String(validating: body[(rest + 1)..<(rest + 1 + length)], as: UTF8.self),
                let name = FeedComponentName(text)
            else { throw .malformed }
            component = name
            rest += 1 + length
        }
        guard body.count >= rest + 9, let kind = UserKey.Kind(rawValue: body[5]) else { throw .malformed }
        let issuedAt = body[1...4].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        let value = body[6...13].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard kind != .nobody || value == 0 else { throw .malformed }
        var token = try decodeVersion2(body, from: rest)
        token.issuedAt = issuedAt
        token.userKey = UserKey(kind: kind, value: value)
        if age { token.snapshotAgeSeconds = Int(body[14]) << 8 | Int(body[15]) }
        token.component = component
        return token
    }

    /// The version-2 layout from the offset on, which starts at `start`.
    private static func decodeVersion2(_ body: [UInt8], from start: Int) throws(ImpressionTokenError) -> ImpressionToken {
        guard body.count >= start + 9 else { throw .malformed }
        let offset = body[start...(start + 3)].reduce(0) { $0 << 8 | Int($1) }
        let count = Int(body[start + 4])
        let teamCount = Int(body[start + 5])
        let windowFrom = Int(body[start + 6])
        let windowTo = Int(body[start + 7])
        guard (2...ImpressionToken.maxTeams).contains(teamCount), windowFrom <= windowTo, windowTo <= count else { throw .malformed }
        let nibbleBytes = (count + 1) / 2
        let teamsAt = start + 8
        guard body.count >= teamsAt + nibbleBytes else { throw .malformed }
        let teams = (0..<count).map { index in Int(body[teamsAt + index / 2] >> UInt8(4 * (index % 2)) & 0xF) }
        guard teams.allSatisfy({ $0 < teamCount }) else { throw .malformed }
        let (nonce, experiment) = try trailer(body, from: teamsAt + nibbleBytes)
        return ImpressionToken(
            experiment: experiment, offset: offset, slotTeams: teams, teamCount: teamCount,
            creditWindow: (offset + windowFrom)..<(offset + windowTo), nonce: nonce)
    }

    private static func decodeVersion1(_ body: [UInt8]) throws(ImpressionTokenError) -> ImpressionToken {
        let offset = body[1...4].reduce(0) { $0 << 8 | Int($1) }
        let count = Int(body[5])
        let bitBytes = (count + 7) / 8
        guard body.count >= 6 + bitBytes else { throw .malformed }
        let teams = (0..<count).map { index in body[6 + index / 8] & (1 << UInt8(index % 8)) != 0 ? 1 : 0 }
        let (nonce, experiment) = try trailer(body, from: 6 + bitBytes)
        return ImpressionToken(version1: experiment, offset: offset, slotTeams: teams, nonce: nonce)
    }

    /// nonce (8) · experiment length (1) · experiment.
    private static func trailer(nonce: UInt64, experiment: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: nonce >> UInt64(shift))) }
        let name = Array(experiment.utf8.prefix(255))
        bytes.append(UInt8(name.count))
        return bytes + name
    }

    private static func trailer(_ body: [UInt8], from start: Int) throws(ImpressionTokenError) -> (UInt64, String) {
        guard body.count >= start + 9 else { throw .malformed }
        let nonce = body[start..<(start + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let nameLength = Int(body[start + 8])
        guard body.count == start + 9 + nameLength, let experiment = String(validating: body[(start + 9)...], as: UTF8.self) else {
            throw .malformed
        }
        return (nonce, experiment)
    }

    func mac(_ body: [UInt8], key: Secret? = nil) -> [UInt8] {
        guard let key else { return signer.code(for: body, length: Self.macLength) }
        return Array(HMAC<SHA256>.authenticationCode(for: body, using: key.symmetricKey).prefix(Self.macLength))
    }

    private func signedByRetiredKey(_ body: [UInt8], _ signature: [UInt8], now: Date) -> Bool {
        guard let retired, retired.isAccepted(at: now) else { return false }
        return Self.same(mac(body, key: retired.key), signature)
    }

    /// Constant time: how many bytes match must not show in how long the check takes.
    private static func same(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
