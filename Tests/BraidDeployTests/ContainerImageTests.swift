@testable import BraidConfig
import Foundation
import Testing

/// Checks the text of Deploy/container/Containerfile against the Kubernetes manifests, the
/// systemd units, the default configuration and `make dist-check`: one image (tagged with VERSION)
/// runs every container, as the user the pods require, with the ports, health endpoint and runtime
/// package list they assume. Reading the file proves none of it builds or runs: `make image` builds
/// it and `make image-check` runs the image (CI does both).
@Suite("container image")
struct ContainerImageTests {
    static let containerfilePath = "Deploy/container/Containerfile"
    static let packagesPath = "Deploy/container/runtime-packages.txt"

    static func containerfile() throws -> Containerfile {
        try Containerfile(path: Deploy.root.appendingPathComponent(containerfilePath).path)
    }

    static func version() throws -> String {
        try String(contentsOf: Deploy.root.appendingPathComponent("VERSION"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: Deploy.root.appendingPathComponent(relativePath), encoding: .utf8)
    }

    @Test func theReleaseComesFromTheSwiftBuildOrTheTarballAndRunsOnTheSameDebianSlim() throws {
        let file = try Self.containerfile()
        #expect(file.stages.map(\.name) == ["build", "tarball", "release", "stripped", nil], "toolchain, tarball, the chosen one, stripped, runtime")
        guard file.stages.count == 5, let runtime = file.final else { return }
        let (build, tarball, release, stripped) = (file.stages[0], file.stages[1], file.stages[2], file.stages[3])
        #expect(build.image.hasPrefix("swift:6.") && build.image.hasSuffix("-bookworm"), "\(build.image)")
        #expect(build.all("RUN").contains { $0.arguments.contains("Deploy/local/dist.sh") }, "the build stage runs `make dist`")
        #expect(tarball.image == runtime.image, "the tarball is unpacked on the runtime's own base")
        #expect(tarball.all("COPY").contains { $0.arguments.hasPrefix(".build/dist/ ") }, "the tarball stage takes what `make dist` left")
        #expect(release.image == "build", "DIST defaults to compiling in the toolchain image")
        #expect(runtime.image == "debian:bookworm-slim", "the runtime must be the Debian release the binary is built on")
        #expect(stripped.all("COPY").contains { $0.arguments.contains("--from=release") }, "the chosen release is stripped")
        #expect(stripped.all("RUN").contains { $0.arguments.contains("strip --strip-all /dist/braid/braid") })
        #expect(runtime.all("COPY").contains { $0.arguments.contains("--from=stripped") }, "the runtime takes the stripped release")
        let ignored = try Self.text("Deploy/container/Containerfile.dockerignore")
        #expect(ignored.contains("\n.build\n") && ignored.contains("\n!.build/dist/braid-*.tar.gz\n"), "the context has the tarball, not the build folder")
    }

    @Test func everyPodRunsTheVersionedImage() throws {
        let version = try Self.version()
        let manifests = try Deploy.manifests()
        var images: Set<String> = []
        for deployment in manifests where deployment.kind == "Deployment" {
            let spec = deployment.value("spec", "template", "spec")
            for container in Yaml.list(Yaml.value(spec, "containers")) + Yaml.list(Yaml.value(spec, "initContainers")) {
                images.insert(try #require(Yaml.string(Yaml.value(container, "image")), "\(deployment)"))
            }
        }
        #expect(images.count == 1, "gateway, worker and their init containers run one image: \(images.sorted())")
        let image = try #require(images.first)
        #expect(image.hasSuffix("/braid:\(version)"), "\(image): the tag must be VERSION (\(version))")

        // The build command the Containerfile documents tags exactly that image.
        let tags = try Self.containerfile().text.components(separatedBy: " -t ").dropFirst().compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(!tags.isEmpty && tags.allSatisfy { $0 == image }, "Containerfile build commands tag \(tags), the manifests run \(image)")
    }

    @Test func entrypointUserAndPortsMatchThePods() throws {
        let runtime = try #require(try Self.containerfile().final)
        let manifests = try Deploy.manifests()
        let entrypoint = try #require(runtime.last("ENTRYPOINT")?.execForm)
        #expect(entrypoint == ["/usr/local/bin/braid"])

        let user = try #require(runtime.last("USER")?.arguments).split(separator: ":").compactMap { Int($0) }
        #expect(user.count == 2 && user[0] != 0, "a numeric non-root USER uid:gid, so runAsNonRoot can verify it")

        let exposed = Set(runtime.all("EXPOSE").flatMap { $0.arguments.split(separator: " ").compactMap { Int($0.split(separator: "/")[0]) } })
        for (name, service) in [("braid-gateway", "gateway"), ("braid-worker", "worker")] {
            let deployment = try manifests.one("Deployment", name)
            let container = try deployment.container(service)
            #expect(container.command.first == entrypoint[0], "\(name) runs \(container.command)")
            #expect(deployment.int("spec", "template", "spec", "securityContext", "runAsUser") == user.first, "\(name) runAsUser")
            #expect(deployment.int("spec", "template", "spec", "securityContext", "runAsGroup") == user.last, "\(name) runAsGroup")
            let configuration = try Deploy.configuration(of: deployment, container: container, in: manifests)
            let port = service == "gateway" ? configuration.gateway.port : configuration.worker.metricsPort
            #expect(exposed.contains(port), "\(name) serves on \(port), the image exposes \(exposed.sorted())")
        }
        for unit in ["braid-gateway.service", "braid-worker@.service"] {
            let exec = try #require(try Deploy.unit("Deploy/systemd/\(unit)")["ExecStart"]?.first)
            #expect(exec.hasPrefix(entrypoint[0] + " "), "\(unit): \(exec)")
        }
    }

    @Test func defaultCommandUsesTheShippedDefaultConfiguration() throws {
        let runtime = try #require(try Self.containerfile().final)
        let command = try #require(runtime.last("CMD")?.execForm)
        #expect(command.first == "gateway")
        let path = try #require(command.firstIndex(of: "--config").map { command[$0 + 1] })
        #expect(runtime.all("RUN").contains { $0.arguments.contains("config/braid.yaml \(path)") }, "the image installs config/braid.yaml as \(path)")
        #expect(try Self.text("Deploy/local/dist.sh").contains("Deploy/config/braid.yaml \"$stage/config/braid.yaml\""), "the tarball's config/braid.yaml is Deploy/config/braid.yaml")

        let configuration = try ConfigurationLoader.load(file: Deploy.root.appendingPathComponent("Deploy/config/braid.yaml").path, environment: [:])
        try configuration.validate()
        #expect(configuration.gateway.host == "0.0.0.0" && configuration.worker.metricsHost == "0.0.0.0", "reachable from outside the container")
        #expect(configuration.search.sqlite.path.hasPrefix("/var/lib/braid/"), "the catalog under the image's writable /var/lib/braid")
        let exposed = Set(runtime.all("EXPOSE").flatMap { $0.arguments.split(separator: " ").compactMap { Int($0) } })
        #expect(exposed == [configuration.gateway.port, configuration.worker.metricsPort], "EXPOSE \(exposed.sorted())")
    }

    @Test func healthCheckProbesHealthzOnTheExposedPorts() throws {
        let runtime = try #require(try Self.containerfile().final)
        let healthcheck = try #require(runtime.last("HEALTHCHECK")?.arguments)
        #expect(healthcheck.contains("CMD [\"/opt/braid/braid-healthcheck\"]"), "\(healthcheck)")
        #expect(try Self.text("Deploy/local/dist.sh").contains("Deploy/container/braid-healthcheck \"$stage/braid-healthcheck\""))
        let script = try Self.text("Deploy/container/braid-healthcheck")
        #expect(script.contains("GET /healthz "))
        #expect(Deploy.gatewayRoutes.contains("/healthz"))
        let configuration = try ConfigurationLoader.load(file: Deploy.root.appendingPathComponent("Deploy/config/braid.yaml").path, environment: [:])
        #expect(script.contains("${BRAID_GATEWAY_PORT:-\(configuration.gateway.port)}"), "the check's default gateway port")
        #expect(script.contains("${BRAID_WORKER_METRICS_PORT:-\(configuration.worker.metricsPort)}"), "the check's default worker port")
    }

    @Test func imageAndBareSystemCheckInstallOneRuntimeList() throws {
        let packages = try Self.text(Self.packagesPath).split(separator: "\n")
            .map { $0.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "" }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(!packages.isEmpty)
        let name = try NSRegularExpression(pattern: "^[a-z0-9][a-z0-9+.-]+$")
        for package in packages {
            #expect(name.firstMatch(in: package, range: NSRange(package.startIndex..., in: package)) != nil, "'\(package)' is not one Debian package name")
            #expect(!package.hasSuffix("-dev") && !package.hasPrefix("swift"), "\(package): a build dependency in the runtime list")
        }
        let runtime = try #require(try Self.containerfile().final)
        #expect(runtime.all("COPY").contains { $0.arguments.hasPrefix(Self.packagesPath + " ") }, "the runtime stage installs \(Self.packagesPath)")
        #expect(runtime.all("RUN").contains { $0.arguments.contains("xargs apt-get install") })
        #expect(try Self.text("Deploy/local/dist-check.sh").contains("$BRAID_ROOT/\(Self.packagesPath)"), "make dist-check installs the same list")
        #expect(try Self.text("Deploy/local/dist.sh").contains("install -m 0644 \(Self.packagesPath) "), "the tarball ships the list")
    }
}
