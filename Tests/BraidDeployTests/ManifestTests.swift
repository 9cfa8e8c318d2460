@testable import BraidRuntime
import Foundation
import Testing
import Yams

/// Checks the deployment files under `Deploy/` against each other and against the code: every
/// Kubernetes manifest parses, probes point at real routes on the configured ports, scaling
/// stays within the partition count, every credential a pod or scaler reads exists, the
/// configuration files load with the services' own loader, the systemd units stop gracefully,
/// and the Grafana dashboard only queries metrics the code exports.
@Suite("deployment files")
struct ManifestTests {
    // MARK: Kubernetes

    @Test func everyManifestParsesAndNamesItsKind() throws {
        let manifests = try Deploy.manifests()
        let files = Set(manifests.map(\.file))
        #expect(files.count == (try Deploy.kubernetesFiles().count), "a file without any document")
        for manifest in manifests {
            #expect(manifest.string("apiVersion") != nil, "\(manifest)")
            #expect(!manifest.kind.isEmpty && !manifest.name.isEmpty, "\(manifest)")
            if manifest.kind != "Namespace" { #expect(manifest.string("metadata", "namespace") == "braid", "\(manifest)") }
        }
        for kind in ["Namespace", "ConfigMap", "Secret", "Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "ScaledObject", "TriggerAuthentication"] {
            #expect(manifests.contains { $0.kind == kind }, "no \(kind)")
        }
    }

    @Test func gatewayProbesRealRoutesOnTheConfiguredPort() throws {
        let manifests = try Deploy.manifests()
        let deployment = try manifests.one("Deployment", "braid-gateway")
        let container = try deployment.container("gateway")
        let configuration = try Deploy.configuration(of: deployment, container: container, in: manifests)
        try configuration.validate()

        #expect(container.command.contains("gateway"))
        #expect(configuration.gateway.host == "0.0.0.0", "a pod must listen beyond loopback")
        #expect(container.containerPorts.values.contains(configuration.gateway.port))
        let readiness = try #require(container.probe("readinessProbe"))
        let liveness = try #require(container.probe("livenessProbe"))
        #expect(readiness.path == "/readyz")
        #expect(liveness.path == "/healthz")
        for probe in [readiness, liveness] + [container.probe("startupProbe")].compactMap({ $0 }) {
            #expect(container.resolve(probe.port) == configuration.gateway.port, "\(probe)")
            #expect(Deploy.gatewayRoutes.contains(probe.path), "\(probe.path) is not a gateway route")
        }
        #expect(Int(deployment.string("spec", "template", "metadata", "annotations", "prometheus.io/port") ?? "") == configuration.gateway.port)
    }

    @Test func workerProbesHealthOnTheMetricsPort() throws {
        let manifests = try Deploy.manifests()
        let deployment = try manifests.one("Deployment", "braid-worker")
        let container = try deployment.container("worker")
        let configuration = try Deploy.configuration(of: deployment, container: container, in: manifests)
        try configuration.validate()

        #expect(container.command.contains("worker"))
        #expect(configuration.worker.metricsHost == "0.0.0.0", "metrics must be reachable from outside the pod")
        #expect(container.containerPorts.values.contains(configuration.worker.metricsPort))
        let liveness = try #require(container.probe("livenessProbe"))
        #expect(liveness.path == "/healthz")
        for probe in [liveness] + [container.probe("readinessProbe"), container.probe("startupProbe")].compactMap({ $0 }) {
            #expect(probe.path == "/healthz", "the worker serves only /metrics and /healthz")
            #expect(container.resolve(probe.port) == configuration.worker.metricsPort, "\(probe)")
        }
        #expect(Int(deployment.string("spec", "template", "metadata", "annotations", "prometheus.io/port") ?? "") == configuration.worker.metricsPort)
    }

    @Test func serviceTargetsTheGatewayContainerPort() throws {
        let manifests = try Deploy.manifests()
        let service = try manifests.one("Service", "braid-gateway")
        let deployment = try manifests.one("Deployment", "braid-gateway")
        let container = try deployment.container("gateway")
        let selector = try #require(service.map("spec", "selector") as? [String: String])
        #expect(!selector.isEmpty && selector.isSubset(of: deployment.podLabels), "the Service selects no gateway pod")
        let ports = Yaml.list(service.value("spec", "ports"))
        #expect(!ports.isEmpty)
        for port in ports {
            let target = Yaml.value(port, "targetPort") ?? Yaml.value(port, "port")
            #expect(container.resolve(target).map { container.containerPorts.values.contains($0) } == true, "targetPort \(String(describing: target))")
        }
    }

    @Test func autoscalersTargetTheRightDeployments() throws {
        let manifests = try Deploy.manifests()
        let hpa = try manifests.one("HorizontalPodAutoscaler", "braid-gateway")
        #expect(hpa.string("spec", "scaleTargetRef", "kind") == "Deployment")
        #expect(hpa.string("spec", "scaleTargetRef", "name") == "braid-gateway")
        #expect((hpa.int("spec", "minReplicas") ?? 1) <= (hpa.int("spec", "maxReplicas") ?? 0))
        #expect(try manifests.one("Deployment", "braid-gateway").value("spec", "replicas") == nil, "the HPA owns replicas")

        let scaled = try manifests.one("ScaledObject", "braid-worker")
        #expect(scaled.string("spec", "scaleTargetRef", "name") == "braid-worker")
        #expect((scaled.string("spec", "scaleTargetRef", "kind") ?? "Deployment") == "Deployment")
        #expect(try manifests.one("Deployment", "braid-worker").value("spec", "replicas") == nil, "KEDA owns replicas")
    }

    @Test func workersNeverOutnumberPartitions() throws {
        let manifests = try Deploy.manifests()
        let annotated = manifests.compactMap { $0.string("metadata", "annotations", "braid.dev/partitions").flatMap(Int.init) }
        #expect(annotated.count == 1, "state the partition count once, as the braid.dev/partitions annotation")
        let partitions = try #require(annotated.first)
        let scaled = try manifests.one("ScaledObject", "braid-worker")
        let maximum = try #require(scaled.int("spec", "maxReplicaCount"))
        let minimum = scaled.int("spec", "minReplicaCount") ?? 0
        #expect(minimum <= maximum)
        #expect(maximum <= partitions, "maxReplicaCount \(maximum) > \(partitions) partitions: the extra workers would sit idle")
    }

    @Test func kafkaScalerWatchesTheWorkersGroupAndTopic() throws {
        let manifests = try Deploy.manifests()
        let deployment = try manifests.one("Deployment", "braid-worker")
        let configuration = try Deploy.configuration(of: deployment, container: try deployment.container("worker"), in: manifests)
        let scaled = try manifests.one("ScaledObject", "braid-worker")
        let triggers = Yaml.list(scaled.value("spec", "triggers"))
        #expect(triggers.count == 1)
        let trigger = try #require(triggers.first)
        #expect(Yaml.string(Yaml.value(trigger, "type")) == "kafka")
        #expect(Yaml.string(Yaml.value(trigger, "metadata", "consumerGroup")) == configuration.kafka.consumerGroup)
        #expect(Yaml.string(Yaml.value(trigger, "metadata", "topic")) == configuration.kafka.requestsTopic)
        #expect(Yaml.string(Yaml.value(trigger, "metadata", "bootstrapServers")) == configuration.kafka.brokers)
        #expect(Int(Yaml.string(Yaml.value(trigger, "metadata", "lagThreshold")) ?? "") ?? 0 > 0)
        #expect(configuration.kafka.consumerGroup == "braid-workers")
        #expect(configuration.kafka.requestsTopic == "braid.requests")

        let authName = try #require(Yaml.string(Yaml.value(trigger, "authenticationRef", "name")))
        let auth = try manifests.one("TriggerAuthentication", authName)
        let parameters = Set(Yaml.list(auth.value("spec", "secretTargetRef")).compactMap { Yaml.string(Yaml.value($0, "parameter")) })
        let protocol_ = configuration.kafka.properties["security.protocol"] ?? "PLAINTEXT"
        if protocol_.hasPrefix("SASL") { #expect(parameters.isSuperset(of: ["sasl", "username", "password"]), "\(parameters)") }
        if protocol_.hasSuffix("SSL") { #expect(parameters.contains("tls"), "\(parameters)") }
    }

    @Test func disruptionBudgetsSelectExistingDeployments() throws {
        let manifests = try Deploy.manifests()
        let budgets = manifests.filter { $0.kind == "PodDisruptionBudget" }
        let deployments = manifests.filter { $0.kind == "Deployment" }
        #expect(budgets.count == deployments.count, "one PodDisruptionBudget per Deployment")
        for budget in budgets {
            let selector = try #require(budget.map("spec", "selector", "matchLabels") as? [String: String], "\(budget)")
            #expect(!selector.isEmpty)
            #expect(deployments.contains { selector.isSubset(of: $0.podLabels) }, "\(budget) selects no Deployment's pods")
            #expect((budget.value("spec", "maxUnavailable") == nil) != (budget.value("spec", "minAvailable") == nil))
        }
        for deployment in deployments {
            let selector = try #require(deployment.map("spec", "selector", "matchLabels") as? [String: String])
            #expect(selector.isSubset(of: deployment.podLabels), "\(deployment) selector does not match its template")
        }
    }

    @Test func everyReferencedSecretAndConfigMapKeyExists() throws {
        let manifests = try Deploy.manifests()
        var references: [(kind: String, name: String, key: String?, from: String)] = []
        for deployment in manifests where deployment.kind == "Deployment" {
            let spec = deployment.value("spec", "template", "spec")
            for container in Yaml.list(Yaml.value(spec, "containers")) + Yaml.list(Yaml.value(spec, "initContainers")) {
                for env in Yaml.list(Yaml.value(container, "env")) {
                    if let name = Yaml.string(Yaml.value(env, "valueFrom", "secretKeyRef", "name")) {
                        references.append(("Secret", name, Yaml.string(Yaml.value(env, "valueFrom", "secretKeyRef", "key")), deployment.name))
                    }
                    if let name = Yaml.string(Yaml.value(env, "valueFrom", "configMapKeyRef", "name")) {
                        references.append(("ConfigMap", name, Yaml.string(Yaml.value(env, "valueFrom", "configMapKeyRef", "key")), deployment.name))
                    }
                }
                for source in Yaml.list(Yaml.value(container, "envFrom")) {
                    if let name = Yaml.string(Yaml.value(source, "configMapRef", "name")) { references.append(("ConfigMap", name, nil, deployment.name)) }
                    if let name = Yaml.string(Yaml.value(source, "secretRef", "name")) { references.append(("Secret", name, nil, deployment.name)) }
                }
            }
            for volume in Yaml.list(Yaml.value(spec, "volumes")) {
                if let name = Yaml.string(Yaml.value(volume, "secret", "secretName")) { references.append(("Secret", name, nil, deployment.name)) }
                if let name = Yaml.string(Yaml.value(volume, "configMap", "name")) { references.append(("ConfigMap", name, nil, deployment.name)) }
            }
        }
        for auth in manifests where auth.kind == "TriggerAuthentication" {
            for ref in Yaml.list(auth.value("spec", "secretTargetRef")) {
                references.append(("Secret", Yaml.string(Yaml.value(ref, "name")) ?? "", Yaml.string(Yaml.value(ref, "key")), auth.name))
            }
        }
        #expect(references.contains { $0.kind == "Secret" && $0.key != nil })
        for reference in references {
            let target = try manifests.one(reference.kind, reference.name)
            if let key = reference.key {
                #expect(target.dataKeys.contains(key), "\(reference.from) reads \(reference.kind) \(reference.name) key '\(key)', which it lacks")
            }
        }

        // The credentials the task names are in the Secret, not in a ConfigMap.
        let secret = try manifests.one("Secret", "braid-credentials")
        for key in ["redis-url", "cursor-key", "kafka-username", "kafka-password", "kafka-properties.yaml"] {
            #expect(secret.dataKeys.contains(key), "braid-credentials lacks \(key)")
        }
        for configMap in manifests where configMap.kind == "ConfigMap" {
            for (key, value) in configMap.map("data") ?? [:] {
                let text = Yaml.string(value) ?? ""
                #expect(!text.contains("sasl.password") && !text.contains("cursor_key:") && !text.contains("redis://"), "\(configMap.name).\(key) holds a credential")
            }
        }
    }

    @Test func podsRenderTheConfigurationTheyAreStartedWith() throws {
        let manifests = try Deploy.manifests()
        for deployment in manifests where deployment.kind == "Deployment" {
            let spec = deployment.value("spec", "template", "spec")
            let render = Yaml.list(Yaml.value(spec, "initContainers")).first { Yaml.string(Yaml.value($0, "name")) == "render-config" }
            let script = Yaml.list(Yaml.value(render, "command")).compactMap(Yaml.string).joined(separator: " ")
            #expect(script.contains("/etc/braid/config/braid.yaml") && script.contains("/etc/braid/secret/kafka-properties.yaml"), "\(deployment)")
            #expect(script.contains("> /run/braid/braid.yaml"), "\(deployment)")
            for container in Yaml.list(Yaml.value(spec, "containers")) {
                let command = Deploy.Container(value: container).command
                let config = command.firstIndex(of: "--config").map { command[$0 + 1] }
                #expect(config == "/run/braid/braid.yaml", "\(deployment): \(command)")
            }
        }
    }

    // MARK: Configuration files

    @Test func productionExampleLoadsWithTheServicesLoader() throws {
        let file = Deploy.root.appendingPathComponent("Deploy/config/production.yaml").path
        let configuration = try ConfigurationLoader.load(file: file, environment: [:])
        try configuration.validate()
        #expect(configuration.kafka.properties["security.protocol"] == "SASL_SSL")
        #expect(configuration.kafka.properties["sasl.mechanisms"]?.hasPrefix("SCRAM-SHA-") == true)
        #expect(configuration.kafka.properties["sasl.username"] != nil && configuration.kafka.properties["sasl.password"] != nil)
        #expect(configuration.kafka.properties["ssl.ca.location"] != nil)
        let redis = try #require(URLComponents(string: configuration.redis.url))
        #expect(redis.scheme == "redis" && redis.user != nil && redis.password != nil, "Redis with an ACL user and password")
        #expect(configuration.search.source == "elasticsearch")
        #expect(configuration.gateway.cursorKey != BraidConfiguration().gateway.cursorKey)

        // With the systemd environment files on top, as the units start it.
        let environment = try Deploy.environmentFile("Deploy/systemd/braid.env").merging(Deploy.environmentFile("Deploy/systemd/gateway.env")) { $1 }
        let started = try ConfigurationLoader.load(file: file, environment: environment)
        try started.validate()
        #expect(started.redis.url == environment["BRAID_REDIS_URL"])
        #expect(started.gateway.cursorKey == environment["BRAID_GATEWAY_CURSOR_KEY"])
    }

    // MARK: systemd

    @Test func systemdUnitsStartTheServicesAndStopGracefully() throws {
        let units = ["braid-gateway.service": "gateway", "braid-worker@.service": "worker"]
        for (unit, command) in units {
            let settings = try Deploy.unit("Deploy/systemd/\(unit)")
            let exec = try #require(settings["ExecStart"]?.first, "\(unit)")
            #expect(exec.contains("braid \(command)"), "\(unit): \(exec)")
            #expect(exec.contains("--config "), "\(unit)")
            #expect(settings["KillSignal"] == ["SIGTERM"], "\(unit)")
            let timeout = try #require(settings["TimeoutStopSec"]?.first.flatMap { Int($0) }, "\(unit): TimeoutStopSec in seconds")
            #expect(timeout >= 30, "\(unit): below the 30 s drain budget")
            #expect(settings["Restart"]?.first.map { ["always", "on-failure"].contains($0) } == true, "\(unit)")
            for file in settings["EnvironmentFile", default: []] {
                let name = (file.hasPrefix("-") ? String(file.dropFirst()) : file).split(separator: "/").last.map(String.init) ?? ""
                let optional = file.hasPrefix("-")
                let shipped = FileManager.default.fileExists(atPath: Deploy.root.appendingPathComponent("Deploy/systemd/\(name)").path)
                #expect(optional || shipped, "\(unit) requires \(file), which Deploy/systemd/ does not ship")
            }
        }

        // Every instance a host can run gets its own valid metrics port.
        let worker = try Deploy.unit("Deploy/systemd/braid-worker@.service")
        let file = Deploy.root.appendingPathComponent("Deploy/config/production.yaml").path
        var ports: Set<Int> = []
        for instance in 1...9 {
            var environment: [String: String] = [:]
            for assignment in worker["Environment", default: []] {
                let parts = assignment.replacingOccurrences(of: "%i", with: String(instance)).split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { environment[parts[0]] = parts[1] }
            }
            environment.merge(try Deploy.environmentFile("Deploy/systemd/braid.env")) { $1 }
            let configuration = try ConfigurationLoader.load(file: file, environment: environment)
            try configuration.validate()
            #expect(configuration.worker.metricsPort != 0 && configuration.worker.metricsPort != configuration.gateway.port)
            ports.insert(configuration.worker.metricsPort)
        }
        #expect(ports.count == 9, "braid-worker@1…9 share a metrics port")
    }

    // MARK: Grafana

    @Test func dashboardQueriesOnlyExportedMetrics() throws {
        let data = try Data(contentsOf: Deploy.root.appendingPathComponent("Deploy/grafana/braid-dashboard.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = dashboard["panels"] as? [[String: Any]] ?? []
        let expressions = panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        #expect(expressions.count >= 6)
        let exported = try Deploy.exportedMetricNames()
        let pattern = try NSRegularExpression(pattern: "braid_[a-z_]+")
        var used: Set<String> = []
        for expression in expressions {
            for match in pattern.matches(in: expression, range: NSRange(expression.startIndex..., in: expression)) {
                var name = (expression as NSString).substring(with: match.range)
                for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) && !exported.contains(name) {
                    name = String(name.dropLast(suffix.count))
                }
                used.insert(name)
            }
        }
        for name in used { #expect(exported.contains(name), "the dashboard queries \(name), which no code exports") }
        for needed in [
            "braid_http_requests_total", "braid_http_request_duration_seconds", "braid_gateway_near_cache_hits_total",
            "braid_gateway_degraded_pages_total", "braid_kafka_consumer_lag", "braid_worker_dead_lettered_total",
        ] {
            #expect(used.contains(needed), "the dashboard does not show \(needed)")
        }
    }
}

// MARK: - Reading the files

enum Deploy {
    /// The package root, from this file's location (Tests/BraidDeployTests/…).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Routes `braid gateway` serves without parameters (Sources/BraidGateway/HTTP/GatewayRoutes.swift).
    static let gatewayRoutes: Set<String> = ["/healthz", "/readyz", "/metrics"]

    static func kubernetesFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: root.appendingPathComponent("Deploy/kubernetes"), includingPropertiesForKeys: nil)
            .filter { ["yaml", "yml"].contains($0.pathExtension) }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    static func manifests() throws -> [Manifest] {
        var manifests: [Manifest] = []
        for file in try kubernetesFiles() {
            var documents = try Yams.load_all(yaml: String(contentsOf: file, encoding: .utf8))
            while let document = documents.next() {
                guard let object = Yaml.normalise(document) as? [String: Any] else { continue }
                manifests.append(Manifest(file: file.lastPathComponent, object: object))
            }
            if let error = documents.error { throw error }
        }
        return manifests
    }

    /// What a container of a Deployment runs with: the ConfigMap's braid.yaml followed by the
    /// Secret's kafka-properties.yaml (as the render-config init container concatenates them),
    /// under the container's environment (envFrom ConfigMaps, env values and Secret keys).
    static func configuration(of deployment: Manifest, container: Container, in manifests: [Manifest]) throws -> BraidConfiguration {
        var text = ""
        for volume in Yaml.list(deployment.value("spec", "template", "spec", "volumes")) {
            if let name = Yaml.string(Yaml.value(volume, "configMap", "name")) {
                text += try #require(Yaml.string(try manifests.one("ConfigMap", name).value("data", "braid.yaml")))
            }
        }
        for volume in Yaml.list(deployment.value("spec", "template", "spec", "volumes")) {
            if let name = Yaml.string(Yaml.value(volume, "secret", "secretName")) {
                text += "\n" + (try #require(try manifests.one("Secret", name).dataValue("kafka-properties.yaml")))
            }
        }
        var environment: [String: String] = [:]
        for source in Yaml.list(Yaml.value(container.value, "envFrom")) {
            if let name = Yaml.string(Yaml.value(source, "configMapRef", "name")) {
                for (key, value) in try manifests.one("ConfigMap", name).map("data") ?? [:] { environment[key] = Yaml.string(value) }
            }
        }
        for variable in Yaml.list(Yaml.value(container.value, "env")) {
            let name = try #require(Yaml.string(Yaml.value(variable, "name")))
            if let value = Yaml.string(Yaml.value(variable, "value")) {
                environment[name] = value
            } else if let secret = Yaml.string(Yaml.value(variable, "valueFrom", "secretKeyRef", "name")),
                let key = Yaml.string(Yaml.value(variable, "valueFrom", "secretKeyRef", "key"))
            {
                environment[name] = try manifests.one("Secret", secret).dataValue(key)
            }
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("braid-deploy-\(UUID().uuidString).yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try ConfigurationLoader.load(file: path, environment: environment)
    }

    /// `KEY=VALUE` lines of a systemd EnvironmentFile (comments and blank lines skipped).
    static func environmentFile(_ relativePath: String) throws -> [String: String] {
        let text = try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            let parts = trimmed.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { out[parts[0]] = parts[1] }
        }
        return out
    }

    /// The settings of a systemd unit, every value of each key in order.
    static func unit(_ relativePath: String) throws -> [String: [String]] {
        let text = try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
        var out: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#"), !trimmed.hasPrefix(";"), !trimmed.hasPrefix("[") else { continue }
            let parts = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { out[parts[0], default: []].append(parts[1]) }
        }
        return out
    }

    /// Every `label: "braid_…"` in Sources/, as swift-metrics names them.
    static func exportedMetricNames() throws -> Set<String> {
        let sources = root.appendingPathComponent("Sources")
        let pattern = try NSRegularExpression(pattern: #"label: "(braid_[a-z_]+)""#)
        var names: Set<String> = []
        let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let file = enumerator?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                names.insert((text as NSString).substring(with: match.range(at: 1)))
            }
        }
        return names
    }

    struct Container {
        let value: Any

        /// command + args.
        var command: [String] {
            Yaml.list(Yaml.value(value, "command")).compactMap(Yaml.string) + Yaml.list(Yaml.value(value, "args")).compactMap(Yaml.string)
        }

        /// Port name (or its number as a string) to containerPort.
        var containerPorts: [String: Int] {
            var out: [String: Int] = [:]
            for port in Yaml.list(Yaml.value(value, "ports")) {
                guard let number = Yaml.int(Yaml.value(port, "containerPort")) else { continue }
                out[String(number)] = number
                if let name = Yaml.string(Yaml.value(port, "name")) { out[name] = number }
            }
            return out
        }

        /// A port given by name or number, as the number of one of this container's ports.
        func resolve(_ port: Any?) -> Int? {
            guard let key = Yaml.string(port) else { return nil }
            return containerPorts[key]
        }

        struct Probe: CustomStringConvertible {
            let path: String
            let port: Any?
            var description: String { "\(path) on \(String(describing: port))" }
        }

        func probe(_ kind: String) -> Probe? {
            guard let get = Yaml.value(value, kind, "httpGet") else { return nil }
            return Probe(path: Yaml.string(Yaml.value(get, "path")) ?? "", port: Yaml.value(get, "port"))
        }
    }
}

struct Manifest: CustomStringConvertible {
    let file: String
    let object: [String: Any]

    var kind: String { string("kind") ?? "" }
    var name: String { string("metadata", "name") ?? "" }
    var description: String { "\(file): \(kind) \(name)" }

    func value(_ path: String...) -> Any? { Yaml.value(object, path) }
    func string(_ path: String...) -> String? { Yaml.string(Yaml.value(object, path)) }
    func int(_ path: String...) -> Int? { Yaml.int(Yaml.value(object, path)) }
    func map(_ path: String...) -> [String: Any]? {
        guard let map = Yaml.value(object, path) as? [String: Any] else { return nil }
        if map.values.allSatisfy({ $0 is String }) { return map.compactMapValues { $0 as? String } }
        return map
    }

    var podLabels: [String: String] {
        (Yaml.value(object, ["spec", "template", "metadata", "labels"]) as? [String: Any] ?? [:]).compactMapValues(Yaml.string)
    }

    /// Keys of a Secret (`data` or `stringData`) or ConfigMap (`data`).
    var dataKeys: Set<String> {
        Set((value("data") as? [String: Any] ?? [:]).keys).union((value("stringData") as? [String: Any] ?? [:]).keys)
    }

    func dataValue(_ key: String) -> String? {
        if let text = Yaml.string(value("stringData", key)) { return text }
        guard let encoded = Yaml.string(value("data", key)), let data = Data(base64Encoded: encoded) else { return nil }
        return String(data: data, encoding: .utf8)
    }

    func container(_ name: String) throws -> Deploy.Container {
        let containers = Yaml.list(value("spec", "template", "spec", "containers"))
        let found = try #require(containers.first { Yaml.string(Yaml.value($0, "name")) == name }, "\(self) has no container \(name)")
        return Deploy.Container(value: found)
    }
}

extension [Manifest] {
    func one(_ kind: String, _ name: String) throws -> Manifest {
        let matches = filter { $0.kind == kind && $0.name == name }
        #expect(matches.count <= 1, "\(kind) \(name) is defined \(matches.count) times")
        return try #require(matches.first, "no \(kind) \(name) in Deploy/kubernetes/")
    }
}

extension Dictionary where Key == String, Value == String {
    func isSubset(of other: [String: String]) -> Bool { allSatisfy { other[$0.key] == $0.value } }
}

/// Walking what Yams yields.
enum Yaml {
    /// Yams yields `[AnyHashable: Any]`; string keys are easier to walk. The loader's own
    /// conversion, so manifests are read as configuration files are.
    static func normalise(_ value: Any) -> Any { ConfigurationLoader.normalise(value) }

    static func value(_ root: Any?, _ path: String...) -> Any? { value(root, path) }

    static func value(_ root: Any?, _ path: [String]) -> Any? {
        var current = root
        for key in path {
            guard let map = current as? [String: Any] else { return nil }
            current = map[key]
        }
        return current
    }

    static func list(_ value: Any?) -> [Any] { value as? [Any] ?? [] }

    static func string(_ value: Any?) -> String? {
        switch value {
        case let text as String: text
        case let number as Int: String(number)
        case let flag as Bool: String(flag)
        default: nil
        }
    }

    static func int(_ value: Any?) -> Int? {
        switch value {
        case let number as Int: number
        case let text as String: Int(text)
        default: nil
        }
    }
}
