import BraidContracts
import BraidCore
import BraidRedis
import Foundation

/// Cache entries whose version is dated ahead of the clock: written from a request whose
/// `requested_at` lay in the future (a producer with a wrong clock, taken by a worker that does
/// not refuse such requests). Every later request for the key is older than that version and is
/// ignored as stale, so the entry stays frozen until someone removes it.
extension PrecomputeStore {
    /// One ranking pointer or component whose version is dated ahead of the clock.
    public struct FutureDatedEntry: Sendable, Hashable {
        public enum Kind: String, Sendable {
            case ranking, component
        }

        public let kind: Kind
        /// The ranking's pointer key, or the component's content key.
        public let key: String
        /// Milliseconds since 1970, as stored.
        public let version: Int64
        /// Every key removing the entry deletes: for a ranking its pointer, the version it
        /// names and its refresh marker; for a component its content and its request marker.
        public let keysToDelete: [String]

        public var versionDate: Date { Date(timeIntervalSince1970: Double(version) / 1000) }
    }

    /// Every ranking pointer and component stored with a version more than `tolerance` after
    /// `now`, by SCAN over the prefix's keys (on every primary of a cluster).
    public func futureDatedEntries(now: Date = Date(), tolerance: Duration = .seconds(ClockSkew.toleranceSeconds)) async throws
        -> [FutureDatedEntry]
    {
        let latest = Int64((now.timeIntervalSince1970 + Double(tolerance.components.seconds)) * 1000)
        var found: [FutureDatedEntry] = []
        for pointer in try await redis.scanKeys(matching: RedisClient.globPattern(prefix: "\(keys.prefix):{rank:")) where pointer.hasSuffix("}:cur") {
            guard let text = try await redis.getString(pointer), let version = Int64(text), version > latest else { continue }
            let base = String(pointer.dropLast(":cur".count))
            found.append(FutureDatedEntry(kind: .ranking, key: pointer, version: version, keysToDelete: [pointer, "\(base):v:\(version)", "\(base):refresh"]))
        }
        for content in try await redis.scanKeys(matching: RedisClient.globPattern(prefix: "\(keys.prefix):{comp:")) where content.hasSuffix("}:content") {
            let reply = try await redis.send(["HGET", .string(content), "version"])
            guard let text = reply.string, let version = Int64(text), version > latest else { continue }
            let base = String(content.dropLast(":content".count))
            found.append(FutureDatedEntry(kind: .component, key: content, version: version, keysToDelete: [content, "\(base):requested"]))
        }
        return found
    }

    /// Deletes the keys of `entry` if its version is still the one found (a worker may have
    /// replaced it meanwhile); returns the keys deleted. The next request for the ranking or
    /// component misses and is materialized with a version of today.
    public func remove(_ entry: FutureDatedEntry) async throws -> [String] {
        let reply = try await redis.evalsha(
            StorageScripts.removeIfVersion, keys: entry.keysToDelete,
            arguments: [.string(entry.kind.rawValue), .integer(entry.version)])
        guard case .integer(let removed) = reply, removed > 0 else { return [] }
        return entry.keysToDelete
    }
}
