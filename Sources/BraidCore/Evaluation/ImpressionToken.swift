import Crypto
import Foundation

/// What one team-draft page showed: the experiment, where the page starts, and the team of
/// each of its slots. Handed to clients as the page's `impression_id` (see
/// ``ImpressionCodec``) and sent back with impression and click events, so click credit
/// needs no server-side record of the page.
public struct ImpressionToken: Sendable, Hashable {
    public var experiment: String
    /// Global position of the page's first slot.
    public var offset: Int
    /// Team of every slot, in position order.
    public var teams: [Team]
    /// Makes every impression unique (two users seeing the same page are two impressions).
    public var nonce: UInt64

    public init(experiment: String, offset: Int, teams: [Team], nonce: UInt64) {
        self.experiment = experiment
        self.offset = offset
        self.teams = teams
        self.nonce = nonce
    }

    /// The team shown at a global position, or nil when the page did not show it.
    public func team(at position: Int) -> Team? {
        let index = position - offset
        return teams.indices.contains(index) ? teams[index] : nil
    }

    /// Stable id of the impression (the nonce as hex), for storage keys.
    public var id: String { String(nonce, radix: 16) }
}

public enum ImpressionTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    case malformed
    case badSignature

    public var description: String {
        switch self {
        case .malformed: "the impression id is malformed"
        case .badSignature: "the impression id's signature is invalid"
        }
    }
}

/// Signs impression tokens like cursors (HMAC-SHA256, base64url).
///
/// Layout: version (1) · offset (4) · slot count (1) · team bits (⌈count/8⌉, bit set = B) ·
/// nonce (8) · experiment length (1) · experiment (UTF-8) · first 16 bytes of the HMAC.
public struct ImpressionCodec: Sendable {
    static let formatVersion: UInt8 = 1
    static let macLength = 16
    /// Slots per page at most (the gateway's `per_page` limit).
    public static let maxSlots = 255

    private let key: [UInt8]
    private let retired: RetiredKey?

    /// - Parameters:
    ///   - key: the cursor key; impression ids are signed with a key derived from it, so an
    ///     impression id can never pass as a cursor.
    ///   - retired: the cursor key before the last rotation, still accepted until its time.
    public init(key: some DataProtocol, retired: RetiredKey? = nil) {
        self.key = Self.derive(key)
        self.retired = retired.map { RetiredKey(key: Self.derive($0.key), until: $0.until) }
    }

    private static func derive(_ key: some DataProtocol) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array("braid-impression".utf8), using: SymmetricKey(data: Array(key))))
    }

    public func encode(_ token: ImpressionToken) -> String {
        var bytes: [UInt8] = [Self.formatVersion]
        let offset = UInt32(clamping: token.offset)
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: offset >> UInt32(shift))) }
        let teams = token.teams.prefix(Self.maxSlots)
        bytes.append(UInt8(teams.count))
        var bits = [UInt8](repeating: 0, count: (teams.count + 7) / 8)
        for (index, team) in teams.enumerated() where team == .b { bits[index / 8] |= 1 << UInt8(index % 8) }
        bytes += bits
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: token.nonce >> UInt64(shift))) }
        let name = Array(token.experiment.utf8.prefix(255))
        bytes.append(UInt8(name.count))
        bytes += name
        bytes += mac(bytes, key: key)
        return Base64URL.encode(bytes)
    }

    /// Decodes and verifies; never traps, whatever the input.
    public func decode(_ text: String, now: Date = Date()) throws(ImpressionTokenError) -> ImpressionToken {
        guard text.utf8.count <= 512, let bytes = Base64URL.decode(text), bytes.count > Self.macLength + 15 else { throw .malformed }
        let body = Array(bytes.dropLast(Self.macLength))
        let signature = Array(bytes.suffix(Self.macLength))
        guard Self.same(mac(body, key: key), signature) || signedByRetiredKey(body, signature, now: now) else { throw .badSignature }
        guard body[0] == Self.formatVersion else { throw .malformed }
        let offset = body[1...4].reduce(0) { $0 << 8 | Int($1) }
        let count = Int(body[5])
        let bitBytes = (count + 7) / 8
        guard body.count >= 6 + bitBytes + 9 else { throw .malformed }
        let teams = (0..<count).map { index in body[6 + index / 8] & (1 << UInt8(index % 8)) != 0 ? Team.b : Team.a }
        var index = 6 + bitBytes
        let nonce = body[index..<(index + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        index += 8
        let nameLength = Int(body[index])
        index += 1
        guard body.count == index + nameLength, let experiment = String(validating: body[index...], as: UTF8.self) else {
            throw .malformed
        }
        return ImpressionToken(experiment: experiment, offset: offset, teams: teams, nonce: nonce)
    }

    private func mac(_ body: [UInt8], key: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: key)).prefix(Self.macLength))
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
