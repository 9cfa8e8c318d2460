import BraidHarness
import BraidTestSupport
import Foundation
import Testing

/// Hosts of their own (network namespaces on one switch): reachable from the harness, cut
/// and healed, one direction blackholed, and gone afterwards, also when their harness died.
@Suite("Virtual network", .integration, .enabled(if: getuid() == 0, "network namespaces need root"))
struct VirtualNetworkTests {
    /// The namespaces `ip netns list` shows whose names start with `prefix`.
    static func namespaces(_ prefix: String) async throws -> [String] {
        let listed = try await ChildProcess.check(try Toolchain.find("ip"), ["netns", "list"])
        return listed.split(separator: "\n").map { String($0.split(separator: " ").first ?? "") }.filter { $0.hasPrefix(prefix) }
    }

    /// A one-line HTTP server on `host`, port 8000 (python's, from the harness's toolchain).
    static func serve(on host: VirtualNetwork.Host, in network: VirtualNetwork, run: RunDirectory) async throws -> ChildProcess {
        let server = try await network.start(
            try Toolchain.find("python3"), ["-m", "http.server", "8000", "--bind", host.address, "--directory", run.url.path],
            on: host, in: run, log: "http-\(host.name).log")
        try await Readiness.wait(for: "http.server on \(host.name)", process: server, timeout: .seconds(30)) {
            await HTTPProbe.isOK("http://\(host.address):8000/")
        }
        return server
    }

    /// Whether `client` (inside its namespace) gets a 200 from `url` within 2 s.
    static func reaches(_ url: String, from client: VirtualNetwork.Host) async throws -> Bool {
        let (status, _) = try await ChildProcess.run(
            try Toolchain.find("ip"), ["netns", "exec", client.namespace, try Toolchain.find("python3"), "-c",
                "import urllib.request, sys; urllib.request.urlopen(sys.argv[1], timeout=2)", url], timeout: .seconds(20))
        return status == 0
    }

    @Test func hostsAreReachableUntilCutAndAgainAfterTheHealAndNothingIsLeftBehind() async throws {
        let run = try await RunDirectory.scratch("virtual-network-test")
        let network = try await VirtualNetwork.create(hosts: ["server", "client"])
        let prefix = "braid-\(getpid())-"
        do {
            #expect(try await Self.namespaces(prefix).count == 3, "two hosts and the switch")
            let server = network["server"], client = network["client"]
            _ = try await Self.serve(on: server, in: network, run: run)
            let url = "http://\(server.address):8000/"
            #expect(try await Self.reaches(url, from: client))

            try await network.cut(server)
            #expect(!(await HTTPProbe.isOK(url)), "the harness reaches a cut host")
            #expect(!(try await Self.reaches(url, from: client)), "another host reaches a cut host")
            try await network.heal(server)
            #expect(await HTTPProbe.isOK(url))

            // Dropped in the client's firewall: the client hangs, everyone else still gets through.
            try await network.drop(from: client, to: server.address, port: 8000)
            #expect(!(try await Self.reaches(url, from: client)))
            #expect(await HTTPProbe.isOK(url))
            try await network.undrop(from: client, to: server.address, port: 8000)
            #expect(try await Self.reaches(url, from: client))
        } catch {
            await run.stopAll()
            await network.remove()
            throw error
        }
        await run.stopAll()
        await network.remove()
        run.remove()
        #expect(try await Self.namespaces(prefix).isEmpty, "the namespaces outlive remove()")
    }

    /// A harness killed before it removed its network: the next one to make a network removes it.
    @Test func aNetworkWhoseHarnessIsGoneIsRemovedByTheNext() async throws {
        let exited = try await ChildProcess.start("/bin/true", [], log: nil)
        _ = await exited.waitForExit()
        let abandoned = "braid-\(exited.pid)-left"
        _ = try await ChildProcess.check(try Toolchain.find("ip"), ["netns", "add", abandoned])
        let network = try await VirtualNetwork.create(hosts: ["one"])
        await network.remove()
        #expect(try await !Self.namespaces(abandoned).contains(abandoned))
    }
}
