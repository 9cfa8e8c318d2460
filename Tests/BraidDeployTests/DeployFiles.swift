@testable import BraidConfig
import Foundation
import Testing
import Yams

/// Reading the files under `Deploy/`: manifests, environment files, units, the metrics the code exports.
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
