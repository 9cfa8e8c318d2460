import Foundation
import Testing

/// One Kubernetes object of a manifest file, with path accessors into it.
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
