/// Building the map from `CLUSTER SHARDS` (Redis ≥ 7.0) or `CLUSTER SLOTS` replies.
extension ClusterSlotMap {
    struct ParseError: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses a `CLUSTER SHARDS` reply: per shard, `slots` (start/end pairs) and `nodes`
    /// (`id`, `endpoint`, `ip`, `port`, `tls-port`, `role`, `health`). Over TLS the node's
    /// `tls-port` is used; an endpoint of `?` or "" means "the host you asked".
    static func parse(shards reply: RESPValue, tls: Bool, askedHost: String) throws(ParseError) -> ClusterSlotMap {
        guard case .array(let shards?) = reply else { throw ParseError(description: "CLUSTER SHARDS: not an array: \(reply)") }
        var assignments: [(slots: ClosedRange<Int>, shard: Shard)] = []
        for shardValue in shards {
            let shard = try fields(shardValue, "shard")
            guard case .array(let slotValues?)? = shard["slots"], case .array(let nodeValues?)? = shard["nodes"] else {
                throw ParseError(description: "CLUSTER SHARDS: a shard without slots or nodes: \(shardValue)")
            }
            guard !slotValues.isEmpty else { continue }
            var primary: (endpoint: RedisEndpoint, online: Bool)?
            var replicas: [RedisEndpoint] = []
            for nodeValue in nodeValues {
                let node = try fields(nodeValue, "node")
                let portField = tls ? (node["tls-port"] ?? node["port"]) : (node["port"] ?? node["tls-port"])
                guard let port = portField.flatMap(integer), port > 0 else { continue }
                let host = [node["endpoint"], node["ip"]].compactMap { $0?.string }.first { !$0.isEmpty && $0 != "?" } ?? askedHost
                let endpoint = RedisEndpoint(host: host, port: port)
                let online = node["health"]?.string.map { $0 == "online" } ?? true
                if node["role"]?.string == "master" {
                    // During a failover a shard can list its failed old primary next to the new one.
                    if primary == nil || (online && primary?.online == false) { primary = (endpoint, online) }
                } else if online {
                    replicas.append(endpoint)
                }
            }
            guard let primary else { continue }
            var index = 0
            while index + 1 < slotValues.count {
                guard let start = integer(slotValues[index]), let end = integer(slotValues[index + 1]), start <= end else {
                    throw ParseError(description: "CLUSTER SHARDS: bad slot range in \(slotValues)")
                }
                assignments.append((start...end, Shard(primary: primary.endpoint, replicas: replicas)))
                index += 2
            }
        }
        return ClusterSlotMap(assignments)
    }

    /// Parses a `CLUSTER SLOTS` reply: `[start, end, [host, port, id, …], replica…]` per range.
    /// A null or empty host means "the host you asked".
    static func parse(slots reply: RESPValue, askedHost: String) throws(ParseError) -> ClusterSlotMap {
        guard case .array(let ranges?) = reply else { throw ParseError(description: "CLUSTER SLOTS: not an array: \(reply)") }
        var assignments: [(slots: ClosedRange<Int>, shard: Shard)] = []
        for rangeValue in ranges {
            guard case .array(let parts?) = rangeValue, parts.count >= 3, let start = integer(parts[0]), let end = integer(parts[1]),
                start <= end
            else {
                throw ParseError(description: "CLUSTER SLOTS: bad entry \(rangeValue)")
            }
            let nodes = try parts[2...].map { (value: RESPValue) throws(ParseError) -> RedisEndpoint in
                guard case .array(let node?) = value, node.count >= 2, let port = integer(node[1]) else {
                    throw ParseError(description: "CLUSTER SLOTS: bad node \(value)")
                }
                let host = node[0].string.flatMap { $0.isEmpty || $0 == "?" ? nil : $0 } ?? askedHost
                return RedisEndpoint(host: host, port: port)
            }
            assignments.append((start...end, Shard(primary: nodes[0], replicas: Array(nodes.dropFirst()))))
        }
        return ClusterSlotMap(assignments)
    }

    /// A RESP2 map (a flat array of name, value, name, value…) as a dictionary.
    private static func fields(_ value: RESPValue, _ what: String) throws(ParseError) -> [String: RESPValue] {
        guard case .array(let items?) = value, items.count % 2 == 0 else {
            throw ParseError(description: "CLUSTER SHARDS: a \(what) is not a map: \(value)")
        }
        var fields: [String: RESPValue] = [:]
        for index in stride(from: 0, to: items.count, by: 2) {
            if let name = items[index].string { fields[name] = items[index + 1] }
        }
        return fields
    }

    private static func integer(_ value: RESPValue) -> Int? {
        switch value {
        case .integer(let number): Int(number)
        default: value.string.flatMap { Int($0) }
        }
    }
}
