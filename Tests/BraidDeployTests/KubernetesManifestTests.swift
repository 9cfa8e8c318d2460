@testable import BraidConfig
import Foundation
import Testing
import Yams
import BraidCore
import BraidTestSupport

/// Kubernetes manifests: they parse, probe real routes on the configured ports, scale within the
/// partition count, and find every credential they read.
@Suite("Kubernetes manifests")
struct KubernetesManifestTests {
    @Test func everyManifestParsesAndNamesItsKind() throws {
        let manifests = try Deploy.manifests()
        let files = Set(manifests.map(\.file))
        #expect(files.count == (try Deploy.kubernetesFiles().count), "a file without any document")
        for manifest in manifests {
            #expect(manifest.string("apiVersion") != nil, "\(manifest)")
            #expect(!manifest.kind.isEmpty && !manifest.name.isEmpty, "\(manifest)")
            if manifest.kind != "Namespace" { #expect(manifest.string("metadata", "namespace") == "braid", "\(manifest)") }
        }
        for kind in [
            "Namespace", "ConfigMap", "Secret", "Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "ScaledObject",
            "TriggerAuthentication", "NetworkPolicy",
        ] {
            #expect(manifests.contains { $0.kind == kind }, "no \(kind)")
        }
    }

    /// Strictly, against the API schemas of the oldest releases the manifests ask for
    /// (00-namespace.yaml: Kubernetes 1.30; docs/deploying.md: KEDA 2.12) and of the newest at hand
    /// (1.37, the newest `kubernetes-validate` bundles; KEDA 2.20.2, vendored in Schemas/vendor/keda/).
    @Test(arguments: [("1.30.0", "2.12.0"), ("1.37.0", "2.20.2")])
    func everyResourceValidatesStrictlyAgainstTheKubernetesAndKEDASchemas(kubernetes: String, keda: String) throws {
        let report = try KubernetesValidator.validate(
            try Deploy.kubernetesFiles(), kubernetesVersion: kubernetes, customResourceDefinitions: try Self.kedaDefinitions(keda))
        #expect(report.failed.isEmpty, "\(report.failed)")
        #expect(report.withoutSchema.isEmpty, "\(report.withoutSchema)")
        let manifests = try Deploy.manifests()
        #expect(report.passed.count == manifests.count, "\(report.passed)")
    }

    @Test(arguments: [
        ("30-gateway.yaml", "  revisionHistoryLimit:", "  revisionHistoryLimits:", "Deployment/braid-gateway"),
        ("50-worker-autoscaling.yaml", "  maxReplicaCount:", "  maxReplicaCounts:", "ScaledObject/braid-worker"),
    ])
    func aFieldTheReleaseDoesNotKnowFailsTheValidation(manifest: String, field: String, misspelt: String, resource: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("braid-k8s-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = try String(contentsOf: Deploy.root.appendingPathComponent("Deploy/kubernetes/\(manifest)"), encoding: .utf8)
        let broken = original.replacingOccurrences(of: field, with: misspelt)
        try #require(broken != original)
        let file = folder.appendingPathComponent(manifest)
        try broken.write(to: file, atomically: true, encoding: .utf8)
        let report = try KubernetesValidator.validate([file], kubernetesVersion: "1.30.0", customResourceDefinitions: try Self.kedaDefinitions("2.12.0"))
        let key = misspelt.trimmingCharacters(in: CharacterSet(charactersIn: " :"))
        #expect(report.failed.contains { $0.contains(resource) && $0.contains(key) }, "\(report.failed)")
    }

    /// KEDA's CustomResourceDefinitions of one release, as vendored.
    static func kedaDefinitions(_ version: String) throws -> [URL] {
        let folder = Deploy.root.appendingPathComponent("Schemas/vendor/keda/\(version)")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).filter { $0.pathExtension == "yaml" }
        try #require(!files.isEmpty, "no CRDs in \(folder.path)")
        return files
    }

    @Test func gatewayProbesRealRoutesOnTheConfiguredPort() throws {
        let manifests = try Deploy.manifests()
        let deployment = try manifests.one("Deployment", "braid-gateway")
        let container = try deployment.container("gateway")
        let configuration = try Deploy.configuration(of: deployment, container: container, in: manifests, secrets: Deploy.generatedSecrets())
        try configuration.validate()
        let listeners = try configuration.validateExposure(of: .gateway)
        #expect(configuration.console.enabled && !configuration.console.token.isEmpty, "the console is on, behind the Secret's token")
        #expect(configuration.identity.mode == .jwt, "users are verified")
        #expect(configuration.gateway.rateLimits.enabled && !configuration.gateway.rateLimits.exemptLoopback, "limits apply to every caller")

        #expect(container.command.contains("gateway"))
        #expect(configuration.gateway.host == "0.0.0.0", "a pod must listen beyond loopback")
        #expect(container.containerPorts.values.contains(configuration.gateway.port))
        #expect(listeners.map(\.key) == ["gateway.host", "gateway.admin_host"], "the admin surface on a listener of its own")
        #expect(container.containerPorts["admin"] == configuration.gateway.adminPort)
        let readiness = try #require(container.probe("readinessProbe"))
        let liveness = try #require(container.probe("livenessProbe"))
        #expect(readiness.path == "/readyz")
        #expect(liveness.path == "/healthz")
        for probe in [readiness, liveness] + [container.probe("startupProbe")].compactMap({ $0 }) {
            #expect(container.resolve(probe.port) == configuration.gateway.port, "\(probe)")
            #expect(Deploy.gatewayRoutes.contains(probe.path), "\(probe.path) is not a gateway route")
        }
        #expect(Int(deployment.string("spec", "template", "metadata", "annotations", "prometheus.io/port") ?? "") == configuration.gateway.adminPort)
    }

    @Test func workerProbesHealthOnTheMetricsPort() throws {
        let manifests = try Deploy.manifests()
        let deployment = try manifests.one("Deployment", "braid-worker")
        let container = try deployment.container("worker")
        let configuration = try Deploy.configuration(of: deployment, container: container, in: manifests, secrets: Deploy.generatedSecrets())
        try configuration.validate()
        _ = try configuration.validateExposure(of: .worker)

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

    /// As shipped (placeholders in the Secret), neither service starts: each names the keys.
    @Test func theShippedSecretIsRefusedByBothServices() throws {
        let manifests = try Deploy.manifests()
        for (name, service, role) in [("braid-gateway", "gateway", ServiceRole.gateway), ("braid-worker", "worker", .worker)] {
            let deployment = try manifests.one("Deployment", name)
            let configuration = try Deploy.configuration(of: deployment, container: try deployment.container(service), in: manifests)
            try configuration.validate()
            let error = #expect(throws: ConfigurationError.self, "\(name)") { try configuration.validateExposure(of: role) }
            let message = error?.message ?? ""
            let keys = role == .gateway ? ["gateway.cursor_key", "gateway.impression_key", "console.token", "admin.token"] : ["admin.token"]
            for key in keys { #expect(message.contains("\(key) is a published development key or a placeholder"), "\(name): \(message)") }
            #expect(!message.contains("CHANGE-ME"), "the error names keys, never values: \(message)")
        }
    }

    /// Secrets reach the pods as files of the Secret volume (`BRAID_*_FILE`), never as
    /// environment values; no pod gets a service account token.
    @Test func secretsAreMountedFilesAndNoPodHasAnAPIToken() throws {
        let manifests = try Deploy.manifests()
        for deployment in manifests where deployment.kind == "Deployment" {
            #expect(deployment.value("spec", "template", "spec", "automountServiceAccountToken") as? Bool == false, "\(deployment)")
            for value in Yaml.list(deployment.value("spec", "template", "spec", "containers")) {
                let container = Deploy.Container(value: value)
                for variable in Yaml.list(Yaml.value(value, "env")) {
                    let name = Yaml.string(Yaml.value(variable, "name")) ?? ""
                    #expect(Yaml.value(variable, "valueFrom", "secretKeyRef") == nil, "\(deployment): \(name) reads a Secret into the environment")
                    if name.hasSuffix("_FILE") {
                        let path = Yaml.string(Yaml.value(variable, "value")) ?? ""
                        #expect(try Deploy.mountedSecret(path, deployment: deployment, container: container) != nil, "\(deployment): \(name)")
                    }
                }
            }
        }
    }

    /// Ingress is denied but for the gateway's public port from anywhere, and the admin and
    /// metrics ports from the monitoring namespace.
    @Test func networkPolicyAdmitsOnlyWhatIsServed() throws {
        let manifests = try Deploy.manifests()
        let policies = manifests.filter { $0.kind == "NetworkPolicy" }
        let deny = try #require(policies.first { ($0.map("spec", "podSelector") ?? [:]).isEmpty }, "no default-deny policy")
        #expect(Yaml.list(deny.value("spec", "policyTypes")).compactMap(Yaml.string) == ["Ingress"] && deny.value("spec", "ingress") == nil)
        let gateway = try manifests.one("Deployment", "braid-gateway")
        let worker = try manifests.one("Deployment", "braid-worker")
        let secrets = Deploy.generatedSecrets()
        let gatewayConfiguration = try Deploy.configuration(of: gateway, container: try gateway.container("gateway"), in: manifests, secrets: secrets)
        let workerConfiguration = try Deploy.configuration(of: worker, container: try worker.container("worker"), in: manifests, secrets: secrets)
        func rules(_ deployment: Manifest) throws -> [(ports: [Int], open: Bool)] {
            let policy = try #require(policies.first {
                (($0.map("spec", "podSelector", "matchLabels") as? [String: String]) ?? [:]).isSubset(of: deployment.podLabels)
                    && !(($0.map("spec", "podSelector") ?? [:]).isEmpty)
            }, "no policy selects \(deployment)")
            return Yaml.list(policy.value("spec", "ingress")).map { rule in
                let ports = Yaml.list(Yaml.value(rule, "ports")).compactMap { Yaml.int(Yaml.value($0, "port")) }
                return (ports, Yaml.value(rule, "from") == nil)
            }
        }
        let gatewayRules = try rules(gateway)
        #expect(gatewayRules.contains { $0.open && $0.ports == [gatewayConfiguration.gateway.port] }, "the public port from anywhere")
        #expect(gatewayRules.contains { !$0.open && $0.ports == [gatewayConfiguration.gateway.adminPort] }, "the admin port from some")
        #expect(!gatewayRules.contains { $0.open && $0.ports.contains(gatewayConfiguration.gateway.adminPort) }, "the admin port open to all")
        let workerRules = try rules(worker)
        #expect(workerRules.count == 1 && workerRules[0].ports == [workerConfiguration.worker.metricsPort] && !workerRules[0].open)
        // The Service exposes the public port only.
        let service = try manifests.one("Service", "braid-gateway")
        let container = try gateway.container("gateway")
        for port in Yaml.list(service.value("spec", "ports")) {
            #expect(container.resolve(Yaml.value(port, "targetPort")) == gatewayConfiguration.gateway.port)
        }
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
        for key in ["redis-url", "cursor-key", "impression-key", "console-token", "admin-token", "kafka-username", "kafka-password", "kafka-properties.yaml"] {
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

    /// Every container reaches a Redis Cluster over TLS as an ACL user (not `default`), with
    /// the same `redis.*` keys as Deploy/config/production.yaml, and its CA file is a key of
    /// the Secret mounted where `redis.tls.ca_file` points.
    @Test func podsUseATLSClusterAsAnACLUser() throws {
        let manifests = try Deploy.manifests()
        for deployment in manifests where deployment.kind == "Deployment" {
            let spec = deployment.value("spec", "template", "spec")
            for value in Yaml.list(Yaml.value(spec, "containers")) {
                let container = Deploy.Container(value: value)
                let configuration = try Deploy.configuration(of: deployment, container: container, in: manifests)
                try configuration.validate()
                let redis = configuration.redis
                #expect(redis.mode == .cluster, "\(deployment): a Redis Cluster")
                let url = try #require(URLComponents(string: redis.url), "\(deployment): \(redis.url)")
                #expect(url.scheme == "rediss", "\(deployment): over TLS")
                let user = redis.username ?? url.user ?? ""
                #expect(!user.isEmpty && user != "default", "\(deployment): an ACL user, not default")
                #expect(!redis.password.isEmpty || !(url.password ?? "").isEmpty, "\(deployment): a password")
                #expect(redis.tls.verifyServerName, "\(deployment): the server name is verified")
                // The CA file: a key of the Secret volume mounted over its folder.
                let caFile = URL(fileURLWithPath: try #require(redis.tls.caFile, "\(deployment): a CA file"))
                let mount = Yaml.list(Yaml.value(value, "volumeMounts")).first {
                    Yaml.string(Yaml.value($0, "mountPath")) == caFile.deletingLastPathComponent().path
                }
                let volume = Yaml.list(Yaml.value(spec, "volumes")).first { Yaml.string(Yaml.value($0, "name")) == Yaml.string(Yaml.value(mount, "name")) }
                let secret = try #require(Yaml.string(Yaml.value(volume, "secret", "secretName")), "\(deployment): \(caFile.path) is not on a Secret volume")
                #expect(try manifests.one("Secret", secret).dataKeys.contains(caFile.lastPathComponent), "\(deployment): \(secret) lacks \(caFile.lastPathComponent)")
            }
        }
    }
}
