import Foundation

/// Hosts of their own on one machine: each a Linux network namespace with one address, all on
/// one switch (a bridge in a namespace of its own), and this process joined to the switch too,
/// so it can reach every host. Nothing is routed or forwarded in this machine's own namespace;
/// traffic stays inside the namespaces made here. Needs root.
///
/// Links are cut by taking a host's switch port down (``cut(_:)``), or one direction silently
/// by dropping packets in a host's own firewall (``drop(from:to:)``: no RST, so connections hang
/// rather than fail). ``remove()`` deletes every namespace, and with them every link; a network
/// left by a harness that was killed is removed by the next ``create(hosts:)``.
public final class VirtualNetwork: Sendable {
    /// One host: its namespace, its address on the switch, and its switch port.
    public struct Host: Sendable, Hashable {
        public let name: String
        public let namespace: String
        public let address: String
        let port: String
    }

    public let hosts: [String: Host]
    /// This process's own address on the switch.
    public let harnessAddress: String
    private let tag: String
    private var switchNamespace: String { "braid-\(tag)-switch" }

    private init(tag: String, hosts: [String: Host], harnessAddress: String) {
        self.tag = tag
        self.hosts = hosts
        self.harnessAddress = harnessAddress
    }

    /// Makes one host per name (names of up to 8 letters) on a fresh /24.
    public static func create(hosts names: [String]) async throws(HarnessError) -> VirtualNetwork {
        await removeAbandoned()
        let ip = try Toolchain.find("ip")
        let tag = "\(getpid())"
        let subnet = try await freeSubnet()
        let network = VirtualNetwork(
            tag: tag,
            hosts: Dictionary(
                uniqueKeysWithValues: names.enumerated().map { index, name in
                    (name, Host(name: name, namespace: "braid-\(tag)-\(name)", address: "\(subnet).\(10 + index)", port: "p\(index)"))
                }),
            harnessAddress: "\(subnet).1")
        let sw = network.switchNamespace
        let rootLink = "bd\(tag)r"
        do {
            func run(_ arguments: [String]) async throws(HarnessError) { try await ChildProcess.check(ip, arguments) }
            try await run(["netns", "add", sw])
            try await run(["-n", sw, "link", "add", "br0", "type", "bridge"])
            try await run(["-n", sw, "link", "set", "br0", "up"])
            try await run(["link", "add", rootLink, "type", "veth", "peer", "name", "root", "netns", sw])
            try await run(["-n", sw, "link", "set", "root", "master", "br0", "up"])
            try await run(["addr", "add", "\(network.harnessAddress)/24", "dev", rootLink])
            try await run(["link", "set", rootLink, "up"])
            for host in network.hosts.values {
                try await run(["netns", "add", host.namespace])
                try await run(["-n", host.namespace, "link", "set", "lo", "up"])
                try await run(["-n", sw, "link", "add", host.port, "type", "veth", "peer", "name", "eth0", "netns", host.namespace])
                try await run(["-n", sw, "link", "set", host.port, "master", "br0", "up"])
                try await run(["-n", host.namespace, "addr", "add", "\(host.address)/24", "dev", "eth0"])
                try await run(["-n", host.namespace, "link", "set", "eth0", "up"])
            }
        } catch {
            await network.remove()
            throw error
        }
        return network
    }

    /// The host called `name`.
    public subscript(name: String) -> Host {
        guard let host = hosts[name] else { preconditionFailure("no host \(name) in this network") }
        return host
    }

    /// Starts `executable` inside `host`'s namespace, recorded in `run` like any child.
    public func start(
        _ executable: String, _ arguments: [String], on host: Host, in run: RunDirectory, environment: [String: String] = [:], log: String
    ) async throws(HarnessError) -> ChildProcess {
        try await run.start(try Toolchain.find("ip"), ["netns", "exec", host.namespace, executable] + arguments, environment: environment, log: log)
    }

    /// Takes `host`'s switch port down: it can reach no one and no one can reach it.
    public func cut(_ host: Host) async throws(HarnessError) {
        try await ChildProcess.check(try Toolchain.find("ip"), ["-n", switchNamespace, "link", "set", host.port, "down"])
    }

    /// Brings `host`'s switch port back up.
    public func heal(_ host: Host) async throws(HarnessError) {
        try await ChildProcess.check(try Toolchain.find("ip"), ["-n", switchNamespace, "link", "set", host.port, "up"])
    }

    /// Drops, in `host`'s own firewall, every packet it sends to `address` (TCP port `port`, or
    /// all): silently, no RST, as a broken middlebox does.
    public func drop(from host: Host, to address: String, port: Int? = nil) async throws(HarnessError) {
        try await ChildProcess.check(try Toolchain.find("ip"), ["netns", "exec", host.namespace, "iptables"] + Self.rule("-A", address, port))
    }

    /// Removes the rule of ``drop(from:to:port:)``.
    public func undrop(from host: Host, to address: String, port: Int? = nil) async throws(HarnessError) {
        try await ChildProcess.check(try Toolchain.find("ip"), ["netns", "exec", host.namespace, "iptables"] + Self.rule("-D", address, port))
    }

    private static func rule(_ action: String, _ address: String, _ port: Int?) -> [String] {
        [action, "OUTPUT", "-d", address] + (port.map { ["-p", "tcp", "--dport", "\($0)"] } ?? []) + ["-j", "DROP"]
    }

    /// Deletes every namespace of this network (their links go with them).
    public func remove() async {
        guard let ip = try? Toolchain.find("ip") else { return }
        for namespace in hosts.values.map(\.namespace) + [switchNamespace] {
            _ = try? await ChildProcess.run(ip, ["netns", "delete", namespace])
        }
    }

    /// Networks whose harness is gone (namespaces named after a pid that no longer runs).
    static func removeAbandoned() async {
        guard let ip = try? Toolchain.find("ip"), let listed = try? await ChildProcess.run(ip, ["netns", "list"]).output else { return }
        for line in listed.split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            let parts = name.split(separator: "-")
            guard parts.count >= 3, parts[0] == "braid", let pid = pid_t(parts[1]), ProcessIdentity.of(pid) == nil else { continue }
            _ = try? await ChildProcess.run(ip, ["netns", "delete", name])
        }
    }

    /// A 10.x.y.0/24 no interface or route of this machine uses.
    private static func freeSubnet() async throws(HarnessError) -> String {
        let ip = try Toolchain.find("ip")
        let routes = (try? await ChildProcess.run(ip, ["-4", "route", "show", "table", "all"]).output) ?? ""
        let addresses = (try? await ChildProcess.run(ip, ["-4", "addr"]).output) ?? ""
        let used = routes + addresses
        let pid = Int(getpid())
        for attempt in 0..<64 {
            let candidate = "10.\(200 + (pid + attempt) % 50).\((pid / 50 + attempt * 7) % 250)"
            if !used.contains(candidate + ".") { return candidate }
        }
        throw .failed("no free 10.x.y.0/24 for a virtual network")
    }
}
