@testable import BraidConfig
import BraidContracts
import BraidKafka
import Foundation
import Testing
import Yams

/// Reading the files under `Deploy/`: manifests, environment files, units, the metrics the code exports.
enum Deploy {
    /// The package root, from this file's location (Tests/BraidDeployTests/…).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Routes `braid gateway` serves without parameters (Sources/BraidGateway/HTTP/GatewayRoutes.swift).
    static let gatewayRoutes: Set<String> = ["/healthz", "/readyz"]

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
    /// under the container's environment (envFrom ConfigMaps, env values and Secret keys, and
    /// `_FILE` variables naming a key of a mounted Secret volume). `secrets` replaces values of
    /// the Secret's keys (an operator's real ones instead of the shipped placeholders).
    static func configuration(
        of deployment: Manifest, container: Container, in manifests: [Manifest], secrets: [String: String] = [:]
    ) throws -> BraidConfiguration {
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
                environment[name] = try secrets[key] ?? manifests.one("Secret", secret).dataValue(key)
            }
        }
        // `BRAID_*_FILE` naming a key of a mounted Secret: the file the pod would read.
        var files: [String] = []
        defer { files.forEach { try? FileManager.default.removeItem(atPath: $0) } }
        for (name, path) in environment where name.hasSuffix("_FILE") {
            let (secret, key) = try #require(try Self.mountedSecret(path, deployment: deployment, container: container), "\(name): \(path) is no Secret key")
            let value = try #require(try secrets[key] ?? manifests.one("Secret", secret).dataValue(key), "\(name): Secret \(secret) lacks \(key)")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("braid-deploy-secret-\(UUID().uuidString)").path
            try value.write(toFile: file, atomically: true, encoding: .utf8)
            files.append(file)
            environment[name] = file
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("braid-deploy-\(UUID().uuidString).yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try ConfigurationLoader.load(file: path, environment: environment)
    }

    /// The Secret and key a path inside a container names, through a volume mount of a Secret volume.
    static func mountedSecret(_ path: String, deployment: Manifest, container: Container) throws -> (secret: String, key: String)? {
        for mount in Yaml.list(Yaml.value(container.value, "volumeMounts")) {
            guard let mountPath = Yaml.string(Yaml.value(mount, "mountPath")), path.hasPrefix(mountPath + "/") else { continue }
            let volume = Yaml.list(deployment.value("spec", "template", "spec", "volumes")).first {
                Yaml.string(Yaml.value($0, "name")) == Yaml.string(Yaml.value(mount, "name"))
            }
            guard let secret = Yaml.string(Yaml.value(volume, "secret", "secretName")) else { return nil }
            return (secret, String(path.dropFirst(mountPath.count + 1)))
        }
        return nil
    }

    /// Fresh strong values (32 random bytes, base64) for the Secret's keys and tokens.
    static func generatedSecrets() -> [String: String] {
        var secrets: [String: String] = [:]
        for key in ["cursor-key", "impression-key", "console-token", "admin-token"] {
            secrets[key] = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        }
        return secrets
    }

    /// The same as environment variables (systemd, the container's `-e`).
    static func generatedEnvironment() -> [String: String] {
        let secrets = generatedSecrets()
        return [
            "BRAID_GATEWAY_CURSOR_KEY": secrets["cursor-key"]!, "BRAID_GATEWAY_IMPRESSION_KEY": secrets["impression-key"]!,
            "BRAID_CONSOLE_TOKEN": secrets["console-token"]!, "BRAID_ADMIN_TOKEN": secrets["admin-token"]!,
        ]
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
    /// Every metric the code exports: ``MetricName`` and ``KafkaMetricName``, where each name is
    /// written once.
    static func exportedMetricNames() throws -> Set<String> {
        Set(MetricName.allCases.map(\.rawValue) + KafkaMetricName.allCases.map(\.rawValue))
    }

    /// The `braid_…` metrics PromQL `expressions` read, a histogram's series by its name.
    static func metricNames(in expressions: [String], exported: Set<String>) throws -> Set<String> {
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
        return used
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
