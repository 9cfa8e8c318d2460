import BraidClient
import BraidTestSupport
import Foundation
import Testing
import Yams

/// The client's version says when the gateway's API broke its callers. `Schemas/released/`
/// holds the OpenAPI document as each major version of the client was released with it; a
/// change to `Schemas/openapi.yaml` that would break a caller of that version (an operation,
/// parameter, response or property gone, a type changed, something newly required of the
/// caller or no longer promised to it) fails here unless the client's major version moved past
/// it. The document's `info.version` is the client's version, and the changelog has an entry.
@Suite("The client's version and the API's compatibility")
struct ClientContractTests {
    static var released: URL { RepositoryPaths.schemas.appendingPathComponent("released") }

    static func load(_ url: URL) throws -> [String: Any] {
        try #require(try Yams.load(yaml: String(contentsOf: url, encoding: .utf8)) as? [String: Any])
    }

    /// The newest released document: its file name's version, and its content.
    static func latestRelease() throws -> (version: [Int], document: [String: Any]) {
        let files = try FileManager.default.contentsOfDirectory(at: released, includingPropertiesForKeys: nil)
            .compactMap { url -> ([Int], URL)? in
                let name = url.deletingPathExtension().lastPathComponent
                guard name.hasPrefix("openapi-") else { return nil }
                return (Self.version(String(name.dropFirst("openapi-".count))), url)
            }
        let newest = try #require(files.max { $0.0.lexicographicallyPrecedes($1.0) }, "no Schemas/released/openapi-<version>.yaml")
        return (newest.0, try load(newest.1))
    }

    static func version(_ text: String) -> [Int] { text.split(separator: ".").map { Int($0) ?? 0 } }

    @Test func theDocumentCarriesTheClientsVersionAndTheChangelogAnEntry() throws {
        let document = try Self.load(OpenAPIValidator.document)
        #expect((document["info"] as? [String: Any])?["version"] as? String == BraidClient.version)
        let changelog = try String(
            contentsOf: RepositoryPaths.root.appendingPathComponent("Sources/BraidClient/CHANGELOG.md"), encoding: .utf8)
        #expect(changelog.contains("## \(BraidClient.version)\n"), "CHANGELOG.md has no entry for \(BraidClient.version)")
    }

    @Test func aChangeThatBreaksCallersNeedsANewMajorVersion() throws {
        let (release, old) = try Self.latestRelease()
        let current = try Self.load(OpenAPIValidator.document)
        let breaks = APICompatibility(old: old, new: current).breakingChanges()
        let major = Self.version(BraidClient.version).first ?? 0
        if major <= (release.first ?? 0) {
            #expect(breaks.isEmpty, "changes that break callers of \(release.map(String.init).joined(separator: ".")); raise the major version (BraidClient.version, info.version, CHANGELOG.md) and add Schemas/released/openapi-<version>.yaml: \(breaks)")
        }
    }

    /// The check itself: each kind of break it knows is found in a document changed that way.
    @Test func theCompatibilityCheckFindsEachKindOfBreak() throws {
        let (_, old) = try Self.latestRelease()
        func broken(_ change: (inout [String: Any]) -> Void) -> [String] {
            var new = old
            change(&new)
            return APICompatibility(old: old, new: new).breakingChanges()
        }
        #expect(APICompatibility(old: old, new: old).breakingChanges().isEmpty)
        #expect(broken { doc in
            var paths = doc["paths"] as! [String: Any]
            paths["/v1/search"] = nil
            doc["paths"] = paths
        }.contains { $0.contains("GET /v1/search: removed") })
        #expect(broken { doc in
            var schemas = (doc["components"] as! [String: Any])["schemas"] as! [String: Any]
            var page = schemas["SearchPage"] as! [String: Any]
            var properties = page["properties"] as! [String: Any]
            properties["next_cursor"] = nil
            page["properties"] = properties
            schemas["SearchPage"] = page
            doc["components"] = ["schemas": schemas] as [String: Any]
        }.contains { $0.contains("next_cursor") })
        #expect(broken { doc in
            var paths = doc["paths"] as! [String: Any]
            var search = paths["/v1/search"] as! [String: Any]
            var get = search["get"] as! [String: Any]
            get["parameters"] = (get["parameters"] as! [Any]) + [["name": "must", "in": "query", "required": true, "schema": ["type": "string"]]]
            search["get"] = get
            paths["/v1/search"] = search
            doc["paths"] = paths
        }.contains { $0.contains("parameter must") })
    }
}

/// What in a new OpenAPI document would break a caller written against an old one.
struct APICompatibility {
    let old: [String: Any]
    let new: [String: Any]

    static let methods = ["get", "put", "post", "delete", "patch"]

    func breakingChanges() -> [String] {
        var found: [String] = []
        let oldPaths = old["paths"] as? [String: Any] ?? [:]
        let newPaths = new["paths"] as? [String: Any] ?? [:]
        for (path, oldItem) in oldPaths {
            for method in Self.methods {
                guard let oldOperation = (oldItem as? [String: Any])?[method] as? [String: Any] else { continue }
                let name = "\(method.uppercased()) \(path)"
                guard let newOperation = (newPaths[path] as? [String: Any])?[method] as? [String: Any] else {
                    found.append("\(name): removed")
                    continue
                }
                found += parameters(name, old: oldOperation, new: newOperation)
                found += requestBody(name, old: oldOperation, new: newOperation)
                found += responses(name, old: oldOperation, new: newOperation)
            }
        }
        return found.sorted()
    }

    private func parameters(_ name: String, old: [String: Any], new: [String: Any]) -> [String] {
        func byKey(_ operation: [String: Any], _ document: [String: Any]) -> [String: [String: Any]] {
            var out: [String: [String: Any]] = [:]
            for case let parameter as [String: Any] in operation["parameters"] as? [Any] ?? [] {
                let resolved = resolve(parameter, in: document)
                out["\(resolved["in"] ?? "")/\(resolved["name"] ?? "")"] = resolved
            }
            return out
        }
        let before = byKey(old, self.old)
        let after = byKey(new, self.new)
        var found: [String] = []
        for (key, parameter) in after where before[key] == nil && parameter["required"] as? Bool == true {
            found.append("\(name): new required parameter \(parameter["name"] ?? key)")
        }
        for (key, parameter) in before {
            let label = "\(name): parameter \(parameter["name"] ?? key)"
            guard let now = after[key] else {
                found.append("\(label) removed")
                continue
            }
            if now["required"] as? Bool == true, parameter["required"] as? Bool != true { found.append("\(label) now required") }
            found += schema(label, old: parameter["schema"], new: now["schema"], sentByCaller: true)
        }
        return found
    }

    private func requestBody(_ name: String, old: [String: Any], new: [String: Any]) -> [String] {
        guard let after = new["requestBody"] as? [String: Any] else { return [] }
        guard let before = old["requestBody"] as? [String: Any] else {
            return after["required"] as? Bool == true ? ["\(name): a request body is now required"] : []
        }
        return schema("\(name): request body", old: jsonSchema(before), new: jsonSchema(after), sentByCaller: true)
    }

    private func responses(_ name: String, old: [String: Any], new: [String: Any]) -> [String] {
        let before = old["responses"] as? [String: Any] ?? [:]
        let after = new["responses"] as? [String: Any] ?? [:]
        var found: [String] = []
        for (status, response) in before {
            guard let now = after[status] else {
                if status.hasPrefix("2") { found.append("\(name): response \(status) removed") }
                continue
            }
            found += schema(
                "\(name): response \(status)", old: jsonSchema(resolve(response, in: self.old)), new: jsonSchema(resolve(now, in: self.new)),
                sentByCaller: false)
        }
        return found
    }

    private func jsonSchema(_ carrier: Any) -> Any? {
        ((carrier as? [String: Any])?["content"] as? [String: Any]).flatMap { $0["application/json"] as? [String: Any] }?["schema"]
    }

    private func resolve(_ value: Any, in document: [String: Any]) -> [String: Any] {
        guard let object = value as? [String: Any] else { return [:] }
        guard let reference = object["$ref"] as? String, reference.hasPrefix("#/") else { return object }
        var node: Any? = document
        for part in reference.dropFirst(2).split(separator: "/") { node = (node as? [String: Any])?[String(part)] }
        return resolve(node ?? [:], in: document)
    }

    /// `sentByCaller`: a request's schema may not demand more; a response's may not promise less.
    private func schema(_ label: String, old: Any?, new: Any?, sentByCaller: Bool, depth: Int = 0) -> [String] {
        guard depth < 12, let old, let new else { return [] }
        let before = resolve(old, in: self.old)
        let after = resolve(new, in: self.new)
        var found: [String] = []
        if let type = before["type"] as? String, let now = after["type"] as? String, type != now {
            found.append("\(label): type \(type) became \(now)")
        }
        let oldProperties = before["properties"] as? [String: Any] ?? [:]
        let newProperties = after["properties"] as? [String: Any] ?? [:]
        let oldRequired = Set(before["required"] as? [String] ?? [])
        let newRequired = Set(after["required"] as? [String] ?? [])
        if sentByCaller {
            for property in newRequired.subtracting(oldRequired) { found.append("\(label): property \(property) now required") }
        } else {
            for property in oldRequired.subtracting(newRequired) { found.append("\(label): property \(property) no longer promised") }
        }
        for (property, oldProperty) in oldProperties {
            guard let newProperty = newProperties[property] else {
                found.append("\(label): property \(property) removed")
                continue
            }
            found += schema("\(label).\(property)", old: oldProperty, new: newProperty, sentByCaller: sentByCaller, depth: depth + 1)
        }
        if let items = before["items"] {
            found += schema("\(label)[]", old: items, new: after["items"], sentByCaller: sentByCaller, depth: depth + 1)
        }
        return found
    }
}
