/// Where a process of the stack runs: on this machine's loopback, or on a host of a
/// ``VirtualNetwork`` (its network namespace and address).
public struct Placement: Sendable, Hashable {
    /// The address it listens on, and others reach it at.
    public var address: String
    /// The network namespace it runs in; nil: this process's own.
    public var namespace: String?

    public init(address: String, namespace: String? = nil) {
        self.address = address
        self.namespace = namespace
    }

    /// 127.0.0.1 in this process's namespace: the default of everything.
    public static let loopback = Placement(address: "127.0.0.1")

    /// redis-server's arguments for this address: without a password it refuses clients from
    /// anywhere but loopback ("protected mode"), and a virtual host's clients are elsewhere
    /// by design (the network is made and removed by the test).
    var protectedModeOff: [String] { self == .loopback ? [] : ["--protected-mode", "no"] }
}

extension VirtualNetwork.Host {
    /// Its address, inside its namespace.
    public var placement: Placement { Placement(address: address, namespace: namespace) }
}
