import Foundation
import Yams

/// Loads ``BraidConfiguration`` from defaults, then a YAML or JSON file, then environment
/// variables, each layer overriding the one before.
///
/// Environment variables are named after the key path: `redis.url` is `BRAID_REDIS_URL`,
/// `kafka.session_timeout_ms` is `BRAID_KAFKA_SESSION_TIMEOUT_MS`. Only keys that exist
/// in the defaults can be overridden this way (maps such as `rankings` need the file), except
/// `kafka.properties`, whose entries are `BRAID_KAFKA_PROPERTY_<NAME>`; a list takes
/// comma-separated values (`BRAID_REDIS_CLUSTER_NODES=rediss://a:6379,rediss://b:6379`).
/// Every variable can instead name a file holding its value, as `<VARIABLE>_FILE` (secrets
/// mounted as files).
/// Unknown keys in the file are an error rather than silently ignored: a typo in
/// `comand_timeout_ms` should not leave production on a default.
public enum ConfigurationLoader {
    /// Maps whose keys are names chosen by the user, not options.
    /// (`campaigns` is a list written whole in the file, like a map: no variable per field.)
    static let openMaps: Set<String> = ["rankings", "feeds", "campaigns", "kafka.properties"]

    public static func load(
        file: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationError) -> BraidConfiguration {
        var tree = try defaultsTree()
        if let file {
            let fileTree = try readFile(file)
            try checkKnownKeys(fileTree, against: tree, path: [])
            tree = merge(tree, fileTree)
        }
        tree = try applyEnvironment(environment, to: tree)
        tree = unsettingEmptyOptionals(tree)
        do {
            let data = try JSONSerialization.data(withJSONObject: tree)
            return try decoder.decode(BraidConfiguration.self, from: data)
        } catch {
            throw ConfigurationError(message: "invalid configuration: \(describe(error))")
        }
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    static func defaultsTree() throws(ConfigurationError) -> [String: Any] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        do {
            let data = try encoder.encode(BraidConfiguration())
            return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        } catch {
            throw ConfigurationError(message: "internal: cannot encode defaults: \(error)")
        }
    }

    static func readFile(_ path: String) throws(ConfigurationError) -> [String: Any] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(message: "cannot read configuration file \(path): \(error.localizedDescription)")
        }
        do {
            // YAML is a superset of JSON, so one parser reads both.
            guard let loaded = try Yams.load(yaml: text) else { return [:] }
            guard let tree = normalise(loaded) as? [String: Any] else {
                throw ConfigurationError(message: "\(path): the top level must be a mapping")
            }
            return tree
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(message: "\(path) is not valid YAML or JSON: \(error)")
        }
    }

    /// Yams yields `[AnyHashable: Any]`; JSONSerialization needs `[String: Any]`.
    static func normalise(_ value: Any) -> Any {
        switch value {
        case let map as [AnyHashable: Any]:
            var out: [String: Any] = [:]
            for (key, value) in map { out["\(key.base)"] = normalise(value) }
            return out
        case let list as [Any]:
            return list.map(normalise)
        default:
            return value
        }
    }

    static func checkKnownKeys(_ tree: [String: Any], against defaults: [String: Any], path: [String]) throws(ConfigurationError) {
        for (key, value) in tree {
            let keyPath = path + [key]
            let dotted = keyPath.joined(separator: ".")
            if openMaps.contains(dotted) { continue }
            if let renamed = renamedKeys[dotted] {
                throw ConfigurationError(message: "configuration key '\(dotted)' is now '\(renamed)' (each search backend has its own section)")
            }
            // Optional options absent from the encoded defaults (nil) are still known.
            guard defaults.keys.contains(key) || knownOptionalKeys.contains(dotted) else {
                throw ConfigurationError(message: "unknown configuration key '\(dotted)'")
            }
            if let child = value as? [String: Any], let childDefaults = defaults[key] as? [String: Any] {
                try checkKnownKeys(child, against: childDefaults, path: keyPath)
            }
        }
    }

    /// Optional options with no default, and a value of their type (what an environment
    /// variable is parsed as). Unset options are absent from the encoded defaults, so they
    /// are named here.
    static let optionalKeys: [String: any Sendable] = [
        "interleaving.max_docs": 0, "interleaving.pattern": "",
        "redis.username": "", "redis.tls.ca_file": "", "redis.tls.cert_file": "", "redis.tls.key_file": "",
        "redis.tls.server_name": "", "search.elasticsearch.username": "", "search.xapian.index_path": "", "components.sqlite.path": "",
        "gateway.admin_host": "", "gateway.previous_cursor_key_until": "", "tracing.service_name": "",
        "identity.jwt.issuer": "", "identity.jwt.audience": "", "identity.jwt.jwks_url": "", "identity.jwt.jwks_file": "",
    ]
    public static var knownOptionalKeys: Set<String> { Set(optionalKeys.keys) }

    /// Keys that moved, and where to: the old name is refused with the new one, rather than
    /// read under two names.
    static let renamedKeys: [String: String] = [
        "search.sqlite_path": "search.sqlite.path", "search.sqlite_connections": "search.sqlite.connections",
        "search.elasticsearch_url": "search.elasticsearch.url", "search.elasticsearch_index": "search.elasticsearch.index",
        "search.elasticsearch_api_key": "search.elasticsearch.api_key",
        "search.elasticsearch_username": "search.elasticsearch.username",
        "search.elasticsearch_password": "search.elasticsearch.password", "search.http_url": "search.http.url",
    ]

    /// An optional text option set to `""` (in the file or a variable) is unset: that is how
    /// these options were unset before they were optional, and how a variable clears one.
    static func unsettingEmptyOptionals(_ tree: [String: Any]) -> [String: Any] {
        var out = tree
        for (key, sample) in optionalKeys where sample is String {
            let path = key.split(separator: ".").map(String.init)
            guard let parent = value(at: path.dropLast()[...], in: out) as? [String: Any], parent[path.last!] as? String == "" else { continue }
            var trimmed = parent
            trimmed[path.last!] = nil
            out = setting(trimmed, at: path.dropLast()[...], in: out)
        }
        return out
    }

    static func value(at path: ArraySlice<String>, in tree: [String: Any]) -> Any? {
        guard let key = path.first else { return tree }
        return path.count == 1 ? tree[key] : (tree[key] as? [String: Any]).flatMap { value(at: path.dropFirst(), in: $0) }
    }

    /// Deep merge; inside an open map each named entry is replaced whole, so a feed or
    /// ranking defined in the file is exactly what the file says, not a mix with a default.
    static func merge(_ base: [String: Any], _ override: [String: Any], path: [String] = []) -> [String: Any] {
        var out = base
        let isOpenMap = openMaps.contains(path.joined(separator: "."))
        for (key, value) in override {
            if !isOpenMap, let child = value as? [String: Any], let baseChild = base[key] as? [String: Any] {
                out[key] = merge(baseChild, child, path: path + [key])
            } else {
                out[key] = value
            }
        }
        return out
    }

    static func applyEnvironment(_ environment: [String: String], to tree: [String: Any]) throws(ConfigurationError) -> [String: Any] {
        var out = tree
        let optionalLeaves = optionalKeys.map { ($0.key.split(separator: ".").map(String.init), $0.value as Any) }
        for (path, current) in leaves(of: tree, path: []) + optionalLeaves {
            let name = "BRAID_" + path.joined(separator: "_").uppercased()
            guard let raw = try variable(name, in: environment) else { continue }
            let value: Any
            if current is String {
                value = raw
            } else if current is [Any] {
                // Lists (`redis.cluster_nodes`) are comma-separated, like `kafka.brokers`.
                value = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            } else if let number = Int(raw) {
                value = number
            } else if current is Double || current is NSNumber, let number = Double(raw) {
                // Fractional options (`gateway.rate_limits.*.rate_per_second`).
                value = number
            } else if let flag = Bool(raw.lowercased()) {
                value = flag
            } else {
                throw ConfigurationError(message: "\(name) must be a number, not '\(raw)'")
            }
            out = setting(value, at: path[...], in: out)
        }
        let properties = try kafkaProperties(in: environment)
        if !properties.isEmpty {
            var kafka = out["kafka"] as? [String: Any] ?? [:]
            kafka["properties"] = (kafka["properties"] as? [String: Any] ?? [:]).merging(properties) { $1 }
            out["kafka"] = kafka
        }
        return out
    }

    /// The value of variable `name`, or the contents of the file that `name_FILE` names (the
    /// convention of Docker and Kubernetes secrets), without its trailing line break.
    static func variable(_ name: String, in environment: [String: String]) throws(ConfigurationError) -> String? {
        let fileVariable = name + "_FILE"
        switch (environment[name], environment[fileVariable]) {
        case (nil, nil): return nil
        case (let value?, nil): return value
        case (nil, let path?): return try readSecretFile(path, variable: fileVariable)
        case (.some, .some): throw ConfigurationError(message: "set \(name) or \(fileVariable), not both")
        }
    }

    /// Reads a secret file; errors name the variable and the path, never the contents.
    static func readSecretFile(_ path: String, variable: String) throws(ConfigurationError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(message: "\(variable): cannot read '\(path)'")
        }
        guard var text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(message: "\(variable): '\(path)' is not UTF-8 text")
        }
        while text.last?.isNewline == true { text.removeLast() }
        return text
    }

    static let kafkaPropertyPrefix = "BRAID_KAFKA_PROPERTY_"

    /// `kafka.properties` entries from `BRAID_KAFKA_PROPERTY_<NAME>` (or `…_<NAME>_FILE`): the
    /// name lower-cased with `_` for `.`, so `BRAID_KAFKA_PROPERTY_SASL_PASSWORD` is
    /// `sasl.password`. They override the file's entries.
    static func kafkaProperties(in environment: [String: String]) throws(ConfigurationError) -> [String: String] {
        var properties: [String: String] = [:]
        for name in environment.keys where name.hasPrefix(kafkaPropertyPrefix) {
            let base = name.hasSuffix("_FILE") ? String(name.dropLast(5)) : name
            let property = base.dropFirst(kafkaPropertyPrefix.count).lowercased().replacingOccurrences(of: "_", with: ".")
            guard !property.isEmpty else { throw ConfigurationError(message: "\(name) names no librdkafka property") }
            guard properties[property] == nil, let value = try variable(base, in: environment) else { continue }
            properties[property] = value
        }
        return properties
    }

    static func leaves(of tree: [String: Any], path: [String]) -> [([String], Any)] {
        tree.flatMap { key, value -> [([String], Any)] in
            let keyPath = path + [key]
            if openMaps.contains(keyPath.joined(separator: ".")) { return [] }
            if let child = value as? [String: Any] { return leaves(of: child, path: keyPath) }
            return [(keyPath, value)]
        }
    }

    static func setting(_ value: Any, at path: ArraySlice<String>, in tree: [String: Any]) -> [String: Any] {
        guard let key = path.first else { return tree }
        var out = tree
        if path.count == 1 {
            out[key] = value
        } else {
            out[key] = setting(value, at: path.dropFirst(), in: tree[key] as? [String: Any] ?? [:])
        }
        return out
    }

    /// `key.path: what is wrong`, with the key path as it is written in the file.
    static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        switch decoding {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? snakeCased($0.stringValue) }.joined(separator: ".")
            return "\(path.isEmpty ? "" : "\(path): ")\(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// `commandTimeoutMs` → `command_timeout_ms`: decoding reports Swift's property names.
    static func snakeCased(_ key: String) -> String {
        var out = ""
        for character in key {
            if character.isUppercase {
                if !out.isEmpty { out.append("_") }
                out.append(contentsOf: character.lowercased())
            } else {
                out.append(character)
            }
        }
        return out
    }
}

/// A configuration file or variable that cannot be used; the message names the key.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }
}
