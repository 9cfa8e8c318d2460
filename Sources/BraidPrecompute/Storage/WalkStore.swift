import BraidContracts
import BraidCore
import BraidRedis
import NIOCore

/// Walk records in Redis (``WalkRecord``): one hash per walk, `<prefix>:{walk:<id>}`, with the
/// fields `n` (pages stored), `e` (expiry, seconds since 1970), `b` (bytes of the stored pages)
/// and `1`…`n` (each page, ``WalkRecord/Page/encoded()``). A record lives as long as the walk's
/// latest cursor and holds at most `maxBytes` of pages; pages are only ever appended, by
/// ``WalkScripts/append``, so two gateways serving the same page at once agree on one.
///
/// A record has no Redis TTL: under the `volatile-lfu` policy Braid asks for, eviction takes
/// only keys with one, and a walk cannot be recomputed. ``RetentionSweep`` deletes records
/// whose `e` has passed (a cursor is refused from that moment on anyway).
public struct WalkStore: Sendable {
    public let redis: RedisClient
    public let keys: CacheKeys
    /// Most bytes of pages one record holds (`gateway.walk_max_bytes`).
    public let maxBytes: Int

    public init(redis: RedisClient, keys: CacheKeys, maxBytes: Int) {
        self.redis = redis
        self.keys = keys
        self.maxBytes = maxBytes
    }

    /// What an append found.
    public enum AppendOutcome: Sendable, Hashable {
        case appended
        /// The record already has the page (another gateway served it first, or the same cursor
        /// came twice): that page, to be served instead, and the record's expiry.
        case existing(WalkRecord.Page, expiresAt: Int64)
        /// The record lacks pages before the first one appended (expired, evicted, never written).
        case lost
        /// The pages would take the record past ``maxBytes``; nothing was written.
        case capped
    }

    /// The walk's record, or nil when Redis has none.
    public func read(_ walk: UInt64) async throws -> WalkRecord? {
        let key = keys.walk(walk)
        let fields = try await redis.hgetall(key)
        guard !fields.isEmpty else { return nil }
        func bad(_ reason: String) -> StoredValueError { StoredValueError(key: key, reason: reason) }
        guard let count = fields["n"].flatMap({ Int(String(buffer: $0)) }), count >= 0,
              let expiresAt = fields["e"].flatMap({ Int64(String(buffer: $0)) })
        else { throw bad("not a walk record: no page count or expiry") }
        var pages: [WalkRecord.Page] = []
        pages.reserveCapacity(count)
        for number in 0..<count {
            guard let stored = fields[String(number + 1)], let page = WalkRecord.Page(encoded: Array(stored.readableBytesView)) else {
                throw bad("page \(number + 1) of \(count) is missing or unreadable")
            }
            pages.append(page)
        }
        return WalkRecord(pages: pages, expiresAt: expiresAt)
    }

    /// Appends `pages` as pages `first`, `first + 1`, … of the walk, only if the record holds
    /// exactly the pages before `first` (none for `first` 1: the record is created), and keeps
    /// it until `expiresAt` (never earlier than it already was).
    public func append(_ walk: UInt64, pages: [WalkRecord.Page], from first: Int, expiresAt: Int64) async throws -> AppendOutcome {
        precondition(!pages.isEmpty && first >= 1, "append at least one page, from page 1 on")
        let key = keys.walk(walk)
        let arguments: [RESPArgument] = [.integer(Int64(first)), .integer(expiresAt), .integer(Int64(maxBytes))]
            + pages.map { .bytes(ByteBuffer(bytes: $0.encoded())) }
        let reply = try await redis.evalsha(WalkScripts.append, keys: [key], arguments: arguments)
        func unexpected() -> StoredValueError { StoredValueError(key: key, reason: "unexpected reply to a walk append: \(reply)") }
        guard case .array(let elements?) = reply, case .integer(let code)? = elements.first else { throw unexpected() }
        switch code {
        case 0: return .appended
        case 1:
            guard elements.count == 3, case .bulkString(let stored?) = elements[1],
                  let page = WalkRecord.Page(encoded: Array(stored.readableBytesView)),
                  let expiry = elements[2].string.flatMap({ Int64($0) })
            else { throw unexpected() }
            return .existing(page, expiresAt: expiry)
        case 2: return .lost
        case 3: return .capped
        default: throw unexpected()
        }
    }
}

/// The script that appends to walk records.
enum WalkScripts {
    /// Compare-and-append: writes pages `first`… only when the record has `first − 1` pages; when
    /// it already has the last of them, returns that page as stored instead, so that every
    /// gateway serves the page the first one recorded.
    ///
    /// KEYS[1] the record. ARGV[1] first page number, ARGV[2] expiry (seconds since 1970),
    /// ARGV[3] most bytes of pages, ARGV[4…] the pages. Returns `{0}` appended, `{1, page,
    /// expiry}` already there, `{2}` pages before `first` missing, `{3}` over the size cap.
    static let append = RedisScript("""
        local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
        local first = tonumber(ARGV[1])
        local last = first + #ARGV - 4
        if n >= last then
          return {1, redis.call('HGET', KEYS[1], tostring(last)), redis.call('HGET', KEYS[1], 'e')}
        end
        if n ~= first - 1 then
          return {2}
        end
        local bytes = tonumber(redis.call('HGET', KEYS[1], 'b') or '0')
        local fields = {'n', tostring(last)}
        for i = 4, #ARGV do
          bytes = bytes + #ARGV[i]
          fields[#fields + 1] = tostring(first + i - 4)
          fields[#fields + 1] = ARGV[i]
        end
        if bytes > tonumber(ARGV[3]) then
          return {3}
        end
        local expires = tonumber(ARGV[2])
        local current = tonumber(redis.call('HGET', KEYS[1], 'e') or '0')
        if current > expires then
          expires = current
        end
        fields[#fields + 1] = 'b'
        fields[#fields + 1] = tostring(bytes)
        fields[#fields + 1] = 'e'
        fields[#fields + 1] = string.format('%d', expires)
        redis.call('HSET', KEYS[1], unpack(fields))
        return {0}
        """)
}
