/// The cluster error replies the router acts on instead of returning them.
enum ClusterRedirection: Sendable, Equatable {
    /// `MOVED <slot> <host:port>`: the slot lives elsewhere for good; refresh the map and retry there.
    case moved(slot: Int, to: RedisEndpoint)
    /// `ASK <slot> <host:port>`: this one key is being migrated; ask the target once with
    /// ASKING, leave the map as it is.
    case ask(slot: Int, to: RedisEndpoint)
    /// `TRYAGAIN`: a multi-key command during a slot migration; retry shortly.
    case tryAgain
    /// `CLUSTERDOWN`: the cluster (or this slot) is not served right now.
    case clusterDown

    /// The redirection an error reply stands for, nil for any other error. An empty host in
    /// MOVED/ASK (a node that does not know its own address) means the node that answered.
    init?(errorReply message: String, from node: RedisEndpoint) {
        if message.hasPrefix("TRYAGAIN") { self = .tryAgain; return }
        if message.hasPrefix("CLUSTERDOWN") { self = .clusterDown; return }
        let isMoved = message.hasPrefix("MOVED ")
        guard isMoved || message.hasPrefix("ASK ") else { return nil }
        let parts = message.split(separator: " ")
        guard parts.count >= 3, let slot = Int(parts[1]), (0..<RedisHashSlot.count).contains(slot) else { return nil }
        var target = RedisEndpoint(parts[2])
        if target == nil, parts[2].hasPrefix(":"), let port = Int(parts[2].dropFirst()) {
            target = RedisEndpoint(host: node.host, port: port)
        }
        guard let target else { return nil }
        self = isMoved ? .moved(slot: slot, to: target) : .ask(slot: slot, to: target)
    }
}
