import BraidRedis

/// Lua scripts that make each write to Redis atomic. They run with EVALSHA (loaded on first
/// NOSCRIPT). Every key a script touches shares one hash tag, so they also run on Redis
/// Cluster, where a script may only touch keys of one slot.
enum StorageScripts {
    /// Publishes a ranking snapshot and flips the pointer to it, unless the pointer already
    /// names this or a newer version (an old or replayed request: acknowledged, no effect).
    /// The replaced version is kept for `grace` seconds for sessions that pinned it.
    ///
    /// KEYS[1] pointer (`…:cur`), KEYS[2] new version key (`…:v:<version>`).
    /// ARGV[1] version, ARGV[2] snapshot JSON, ARGV[3] TTL seconds, ARGV[4] grace seconds,
    /// ARGV[5] version key prefix (`…:v:`). Returns 1 when written, 0 when stale.
    static let publishSnapshot = RedisScript("""
        local current = redis.call('GET', KEYS[1])
        if current and tonumber(current) >= tonumber(ARGV[1]) then
          return 0
        end
        redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
        if current then
          local old = ARGV[5] .. current
          local ttl = redis.call('TTL', old)
          if ttl == -1 or ttl > tonumber(ARGV[4]) then
            redis.call('EXPIRE', old, ARGV[4])
          end
        end
        redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
        return 1
        """)

    /// Reads the current snapshot in one round trip: the pointer, then the version it names,
    /// unless that is the version the caller already holds.
    ///
    /// KEYS[1] pointer (`…:cur`). ARGV[1] version key prefix (`…:v:`), ARGV[2] the version
    /// the caller holds, or empty. Returns nil without a pointer, `{version}` when it is the
    /// caller's, else `{version, snapshot JSON or nil when that version has expired}`.
    static let readCurrentSnapshot = RedisScript("""
        local version = redis.call('GET', KEYS[1])
        if not version then
          return false
        end
        if version == ARGV[2] then
          return {version}
        end
        return {version, redis.call('GET', ARGV[1] .. version)}
        """)

    /// Deletes a ranking pointer or a component, with the keys that go with it, if it still
    /// holds the version the caller found (``PrecomputeStore/remove(_:)``).
    ///
    /// KEYS[1] the pointer (`…:cur`) or the component hash, then the other keys to delete.
    /// ARGV[1] `ranking` or `component`, ARGV[2] the version found. Returns the keys deleted
    /// (0 when the version changed meanwhile).
    static let removeIfVersion = RedisScript("""
        local current
        if ARGV[1] == 'ranking' then
          current = redis.call('GET', KEYS[1])
        else
          current = redis.call('HGET', KEYS[1], 'version')
        end
        if current ~= ARGV[2] then
          return 0
        end
        return redis.call('DEL', unpack(KEYS))
        """)

    /// Writes a component's content unless a newer version is stored.
    ///
    /// KEYS[1] the component hash (fields `version`, `state_hash`, `content`, `offsets`).
    /// ARGV[1] version, ARGV[2] state hash, ARGV[3] content JSON (`braid.component/v2`),
    /// ARGV[4] item offsets (JSON array), ARGV[5] TTL seconds. Returns 1 when written, 0 when
    /// stale. Every field is written at once, so a reader never pairs a document with the
    /// offsets of another.
    static let publishComponent = RedisScript("""
        local current = redis.call('HGET', KEYS[1], 'version')
        if current and tonumber(current) >= tonumber(ARGV[1]) then
          return 0
        end
        redis.call('HSET', KEYS[1], 'version', ARGV[1], 'state_hash', ARGV[2], 'content', ARGV[3], 'offsets', ARGV[4])
        redis.call('EXPIRE', KEYS[1], ARGV[5])
        return 1
        """)
}
