import ArgumentParser
import BraidHarness
import Foundation

/// `make image-check`: the image `make image` built, run with podman. Not a copy of its parts:
/// everything below runs from the image's own root filesystem, as its own user.
///
/// `braid version` and the health check run in it; then a worker and a gateway started from
/// it in their production configuration (the image's /etc/braid/braid.yaml, real secrets made
/// for the run) materialize a request and serve an interleaved page, against a Redis and a
/// broker the harness runs on this host. The containers have a network namespace of their own
/// (slirp4netns): they reach the host's loopback as 10.0.2.2, and the host reaches the gateway
/// through a port published on 127.0.0.1.
struct ImageCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image-check", abstract: "Run the container image with podman: version, health check, a page and a request.")

    @Option(help: "The image (default: localhost/braid:<VERSION>).") var image: String?
    @Option(help: "Largest acceptable image, in MiB.") var maxSizeMib = 200

    func run() async throws {
        let say = { (message: String) in Say.line("image-check", message) }
        let version = try String(contentsOf: Toolchain.root.appendingPathComponent("VERSION"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let image = image ?? "localhost/braid:\(version)"
        let podman = try Podman()
        guard try await podman.succeeds(["image", "exists", image]) else {
            throw ValidationError("no image \(image): run `make image` first")
        }
        let bytes = Int(try await podman.output(["image", "inspect", "--format", "{{.Size}}", image]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let mib = bytes / 1_048_576
        print("FIGURE image.size_mib \(mib)")
        guard mib <= maxSizeMib else { throw ValidationError("\(image) is \(mib) MiB, more than \(maxSizeMib) MiB") }

        let printed = try await podman.output(["run", "--rm", "--network", "none", image, "version"])
        guard printed.contains("braid \(version)"), printed.contains("librdkafka 2.") else {
            throw ValidationError("`braid version` in the image printed: \(printed)")
        }
        // podman's own log lines (`time=… level=…`, about systemd it does not have here) share the output.
        let lines = printed.split(separator: "\n").filter { !$0.hasPrefix("time=") }
        say("braid version in the image: \(lines.joined(separator: "; "))")

        let run = try await RunDirectory.scratch("image-check")
        let data = run.file("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        // The image's user (uid 10001) writes the corpus here.
        chmod(data.path, 0o777)
        var containers: [String] = []
        do {
            let stack = try await LocalStack.start(in: run, partitions: 2, advertisedHost: Self.hostSeenFromContainers, documents: 0, say: say)
            try await check(podman: podman, image: image, stack: stack, data: data, containers: &containers, say: say)
        } catch {
            for name in containers {
                let logs = (try? await podman.output(["logs", name])) ?? ""
                say("last lines of \(name):\n" + logs.split(separator: "\n").suffix(20).joined(separator: "\n"))
            }
            await podman.remove(containers)
            await run.stopAll()
            run.remove()
            throw error
        }
        await podman.remove(containers)
        await run.stopAll()
        run.remove()
        say("passed")
    }

    private func check(
        podman: Podman, image: String, stack: LocalStack, data: URL, containers: inout [String], say: (String) -> Void
    ) async throws {
        let network = ["--network", "slirp4netns:allow_host_loopback=true"]
        let host = Self.hostSeenFromContainers
        // The image listens on 0.0.0.0, so each secret must be real and the gateway needs a
        // verified identity mode (the page below is not personalised: proxy mode suffices).
        let secrets = (1...5).map { _ in ExposedServiceSecrets.random() }
        let environment = [
            "BRAID_REDIS_URL=redis://\(host):\(stack.redis.port)", "BRAID_KAFKA_BROKERS=\(host):\(stack.broker.port)",
            "BRAID_SEARCH_SQLITE_PATH=/var/lib/braid/data/corpus.sqlite", "BRAID_GATEWAY_CURSOR_KEY=\(secrets[0])",
            "BRAID_GATEWAY_IMPRESSION_KEY=\(secrets[1])", "BRAID_CONSOLE_TOKEN=\(secrets[2])", "BRAID_ADMIN_TOKEN=\(secrets[3])",
            "BRAID_IDENTITY_MODE=proxy", "BRAID_IDENTITY_PROXY_SECRET=\(secrets[4])",
        ].flatMap { ["-e", $0] }
        let mount = ["-v", "\(data.path):/var/lib/braid/data"]

        try await podman.check(["run", "--rm", "--network", "none"] + mount + [image, "seed", "--docs", "2000", "--users", "50", "--db", "/var/lib/braid/data/corpus.sqlite"])
        say("seeded a corpus with the image's braid")

        let worker = "braid-image-check-worker-\(getpid())"
        containers.append(worker)
        try await podman.check(["run", "-d", "--name", worker] + network + mount + environment + [image, "worker", "--config", "/etc/braid/braid.yaml"])
        let gatewayPort = try Ports.free()
        let gateway = "braid-image-check-gateway-\(getpid())"
        containers.append(gateway)
        try await podman.check(
            ["run", "-d", "--name", gateway, "-p", "127.0.0.1:\(gatewayPort):8080"] + network + mount + environment
                + [image, "gateway", "--config", "/etc/braid/braid.yaml"])
        let base = "http://127.0.0.1:\(gatewayPort)"
        try await Readiness.wait(for: "the gateway container", process: nil, timeout: .seconds(60), interval: .milliseconds(200)) {
            await HTTPProbe.isOK("\(base)/healthz")
        }
        try await Readiness.wait(for: "the worker container's group assignment", process: nil, timeout: .seconds(60), interval: .milliseconds(300)) {
            ((try? await podman.output(["logs", worker])) ?? "").contains("partitions assigned")
        }
        for name in [gateway, worker] {
            guard try await podman.succeeds(["healthcheck", "run", name]) else { throw ValidationError("the image's health check failed in \(name)") }
        }
        say("health check passed in the gateway and the worker")

        // A request published from the image too (the broker advertises the address containers reach).
        try await podman.check(["run", "--rm"] + network + environment + [image, "publish", "--ranking", "featured", "--query", "curry rice"])
        let cli = try Toolchain.find("redis-cli")
        try await Readiness.wait(for: "the worker's snapshot of 'curry rice'", process: nil, timeout: .seconds(60), interval: .milliseconds(300)) {
            let keys = (try? await ChildProcess.run(cli, ["-p", "\(stack.redis.port)", "--scan", "--pattern", "braid:{rank:featured:*}:cur"]).output) ?? ""
            return !keys.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        }
        say("the worker container materialized the request")
        let page = try await HTTPProbe.request("\(base)/v1/search?q=curry+rice&per_page=10")
        guard page.status == 200, let json = page.json, let items = json["items"] as? [[String: Any]],
            let interleaving = json["interleaving"] as? [String: Any], interleaving["snapshot"] is NSNumber,
            items.contains(where: { $0["team"] as? String == "B" })
        else { throw ValidationError("the gateway container's page is not interleaved: \(page.status) \(page.text.prefix(400))") }
        say("the gateway container served an interleaved page of \(items.count) items")

        for name in [gateway, worker] {
            try await podman.check(["stop", "--time", "30", name])
            let code = try await podman.output(["inspect", "--format", "{{.State.ExitCode}}", name]).trimmingCharacters(in: .whitespacesAndNewlines)
            guard code == "0" else { throw ValidationError("\(name) exited \(code) on SIGTERM, not 0") }
        }
        say("both drained and exited 0 on SIGTERM")
    }

    /// The host's loopback, seen from a slirp4netns namespace.
    static let hostSeenFromContainers = "10.0.2.2"
}

/// podman with the flags this machine needs (docs/local-stack.md): Debian's runc (crun
/// refuses the hybrid cgroups), cgroupfs, and explicit ulimits for `run`. Containers get no
/// health-check timer (it needs systemd); `podman healthcheck run` runs the image's check.
struct Podman {
    let path: String
    let global = ["--runtime", "/usr/sbin/runc", "--cgroup-manager=cgroupfs"]

    init() throws {
        path = try Toolchain.find("podman")
    }

    private func arguments(_ arguments: [String]) -> [String] {
        guard arguments.first == "run" else { return global + arguments }
        return global + ["run", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024", "--health-interval", "disable"]
            + arguments.dropFirst()
    }

    func output(_ arguments: [String]) async throws -> String {
        try await ChildProcess.check(path, self.arguments(arguments), timeout: .seconds(300))
    }

    func check(_ arguments: [String]) async throws { _ = try await output(arguments) }

    func succeeds(_ arguments: [String]) async throws -> Bool {
        try await ChildProcess.run(path, self.arguments(arguments), timeout: .seconds(120)).status == 0
    }

    func remove(_ containers: [String]) async {
        for name in containers { _ = try? await ChildProcess.run(path, global + ["rm", "-f", "-t", "5", name]) }
    }
}
