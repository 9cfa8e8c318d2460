import Foundation

/// HAProxy (Debian's `haproxy`) on loopback in front of gateways: round robin over those whose
/// `/readyz` answers 200, checked every ``checkIntervalMs``; ``fall`` failed checks take a gateway
/// out, ``rise`` good ones bring it back. A request whose connection fails or is closed
/// unanswered is retried on another gateway: pages are GETs, and an event sent twice is
/// counted once (an impression id's events are deduplicated).
public final class Balancer: Sendable {
    public let port: Int
    public let process: ChildProcess
    public let gateways: [Int]

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public static let checkIntervalMs = 500
    public static let fall = 2
    public static let rise = 2
    /// The `gateway.drain_ms` of a gateway behind it: the checks that take it out, and one
    /// interval more for the check already under way.
    public static let gatewayDrainMs = checkIntervalMs * (fall + 1)

    private init(port: Int, process: ChildProcess, gateways: [Int]) {
        self.port = port
        self.process = process
        self.gateways = gateways
    }

    /// HAProxy's configuration for a balancer on `port` in front of gateways on `gateways`.
    public static func configuration(port: Int, gateways: [Int]) -> String {
        let servers = gateways.enumerated().map { "    server gateway\($0.offset + 1) 127.0.0.1:\($0.element) check" }
        return """
            global
                maxconn 4096

            defaults
                mode http
                timeout connect 2s
                timeout client 30s
                timeout server 30s
                # Another gateway for a request a stopping one did not take or did not answer.
                retries 3
                retry-on conn-failure empty-response
                option redispatch 1
                # The caller's address, for gateways that trust this proxy (gateway.trusted_proxies).
                option forwardfor

            frontend braid
                bind 127.0.0.1:\(port)
                default_backend gateways

            backend gateways
                balance roundrobin
                option httpchk GET /readyz
                http-check expect status 200
                default-server inter \(checkIntervalMs)ms fall \(fall) rise \(rise)
            \(servers.joined(separator: "\n"))

            """
    }

    /// Starts HAProxy on `port` (a free one when nil) in front of `gateways` and waits until a
    /// request through it is answered.
    public static func start(in run: RunDirectory, port: Int? = nil, gateways: [Int]) async throws(HarnessError) -> Balancer {
        let port = try Ports.given(port)
        let file = run.file("haproxy-\(port).cfg")
        do {
            try configuration(port: port, gateways: gateways).write(to: file, atomically: true, encoding: .utf8)
        } catch {
            throw .failed("cannot write \(file.path): \(error)")
        }
        let haproxy = try executable()
        let process = try await run.start(haproxy, ["-db", "-f", file.path], log: "haproxy-\(port).log")
        let balancer = Balancer(port: port, process: process, gateways: gateways)
        try await Readiness.wait(for: "haproxy on port \(port)", process: process, timeout: .seconds(20), interval: .milliseconds(100)) {
            await HTTPProbe.isOK("\(balancer.baseURL)/healthz")
        }
        return balancer
    }

    /// Debian installs it in /usr/sbin, which a user's PATH may lack.
    static func executable() throws(HarnessError) -> String {
        if let found = try? Toolchain.find("haproxy") { return found }
        if FileManager.default.isExecutableFile(atPath: "/usr/sbin/haproxy") { return "/usr/sbin/haproxy" }
        throw .missingTool("haproxy", hint: "run Deploy/local/bootstrap.sh fleet (GATEWAYS=N make run does)")
    }
}
