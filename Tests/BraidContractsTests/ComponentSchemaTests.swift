import BraidContracts
import BraidCore
import BraidTestSupport
import Foundation
import Testing

/// `Schemas/component.schema.json` is the contract of stored component contents; workers
/// check items with ``ComponentItemShape`` before writing, so the gateway can serve the stored
/// bytes unread. These tests hold the Swift table and the schema together: same types, same
/// required fields with the same JSON types, and the same verdict on every example and on
/// every way of breaking one.
@Suite("component schema")
struct ComponentSchemaTests {
    static let schemaURL = RepositoryPaths.schemas.appendingPathComponent("component.schema.json")

    static func schema() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: schemaURL)) as? [String: Any])
    }

    /// The stored types: every type but the interleaved list, whose stored part is a snapshot.
    static let storedTypes = ComponentType.allCases.filter(\.storesContent)

    @Test("The schema's types, item kinds and required fields are the Swift check's")
    func tableMatchesTheSchema() throws {
        let schema = try Self.schema()
        let properties = try #require(schema["properties"] as? [String: Any])
        let typeEnum = try #require((properties["type"] as? [String: Any])?["enum"] as? [String])
        #expect(typeEnum == Self.storedTypes.map(\.rawValue))
        #expect(schema["title"] as? String == StoredComponent.schemaName)

        // type → kind, from the if/then list.
        var kinds: [String: String] = [:]
        var singleObject: Set<String> = []
        for clause in try #require(schema["allOf"] as? [[String: Any]]) {
            let condition = try #require(((clause["if"] as? [String: Any])?["properties"] as? [String: Any])?["type"] as? [String: Any])
            let types = try (condition["enum"] as? [String]) ?? [#require(condition["const"] as? String)]
            let items = try #require(((clause["then"] as? [String: Any])?["properties"] as? [String: Any])?["items"] as? [String: Any])
            let reference = try #require((items["items"] as? [String: Any])?["$ref"] as? String)
            for type in types { kinds[type] = String(reference.dropFirst("#/$defs/".count)) }
            if let maxItems = items["maxItems"] as? Int {
                #expect(maxItems == ComponentItemShape.maxSingleObjectItems)
                singleObject.formUnion(types)
            }
        }
        #expect(singleObject == Set(Self.storedTypes.filter(\.isSingleObject).map(\.rawValue)))
        for type in Self.storedTypes {
            #expect(kinds[type.rawValue] == type.itemKind.rawValue, "\(type.rawValue): schema \(kinds[type.rawValue] ?? "none")")
        }

        // kind → required fields and their JSON types.
        let definitions = try #require(schema["$defs"] as? [String: Any])
        for (kind, fields) in ComponentItemShape.fields {
            let definition = try #require(definitions[kind.rawValue] as? [String: Any], "no $defs/\(kind.rawValue)")
            let required = try #require(definition["required"] as? [String])
            #expect(Set(required) == Set(fields.map(\.name)), "\(kind.rawValue)")
            #expect(required.count == fields.count, "\(kind.rawValue)")
            let properties = try #require(definition["properties"] as? [String: Any])
            for field in fields {
                let property = try #require(properties[field.name] as? [String: Any], "\(kind.rawValue).\(field.name)")
                #expect(Self.fieldType(property) == field.type, "\(kind.rawValue).\(field.name): \(property)")
            }
        }
        #expect(Set(ComponentItemShape.fields.keys) == Set(Self.storedTypes.map(\.itemKind)))
    }

    static func fieldType(_ property: [String: Any]) -> ComponentItemShape.FieldType? {
        switch (property["type"] as? String, property["$ref"] as? String) {
        case ("string", nil): .string
        case (nil, "#/$defs/count"): .count
        case (nil, "#/$defs/time"): .time
        case ("array", nil) where (property["items"] as? [String: Any])?["type"] as? String == "string": .strings
        default: nil
        }
    }

    @Test("The request schema lists every component type")
    func requestSchemaListsEveryType() throws {
        let request = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: RepositoryPaths.schemas.appendingPathComponent("request.schema.json"))) as? [String: Any])
        let component = try #require(((request["$defs"] as? [String: Any])?["component"] as? [String: Any])?["properties"] as? [String: Any])
        #expect((component["type"] as? [String: Any])?["enum"] as? [String] == ComponentType.allCases.map(\.rawValue))
    }

    /// The documented examples, one per item kind.
    static func examples() throws -> [URL] {
        try RepositoryPaths.jsonFiles(in: RepositoryPaths.schemas.appendingPathComponent("examples")).filter { $0.lastPathComponent.hasPrefix("component-") }
    }

    @Test("Examples and what workers write pass both; every example broken in any field fails both")
    func examplesAndTheirBreakagesGetTheSameVerdict() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("braid-components-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var cases: [(file: URL, type: ComponentType, items: [JSONValue], valid: Bool, what: String)] = []
        func add(_ document: [String: Any], type: ComponentType, items: [JSONValue], valid: Bool, what: String) throws {
            let file = folder.appendingPathComponent("\(cases.count).json")
            try JSONSerialization.data(withJSONObject: document).write(to: file)
            cases.append((file, type, items, valid, what))
        }

        let examples = try Self.examples()
        #expect(Set(try examples.map { try Self.type(of: $0).itemKind }) == Set(ComponentItemShape.fields.keys), "an example of every item kind")
        for example in examples {
            let data = try Data(contentsOf: example)
            let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let type = try Self.type(of: example)
            let items = try JSONDecoder().decode([JSONValue].self, from: JSONSerialization.data(withJSONObject: document["items"] as Any))
            try add(document, type: type, items: items, valid: true, what: example.lastPathComponent)

            // What a worker stores for these items is a valid document too.
            let content = ComponentContent(feed: "home", type: type, scope: ComponentScope(user: "u1"), items: items, version: 7, createdAt: Date(timeIntervalSince1970: 1_800_000_000))
            let stored = try StoredComponent.encode(content)
            try add(try #require(try JSONSerialization.jsonObject(with: Data(stored.document)) as? [String: Any]), type: type, items: items, valid: true, what: "stored \(type.rawValue)")

            // Each required field missing, then each of the wrong JSON type.
            guard case .object(let first) = try #require(items.first) else { Issue.record("\(example): not an object"); continue }
            for field in ComponentItemShape.fields[type.itemKind] ?? [] {
                var missing = first
                missing[field.name] = nil
                try add(Self.replacingItems(document, with: [.object(missing)]), type: type, items: [.object(missing)], valid: false, what: "\(type.rawValue) without \(field.name)")
                var wrong = first
                wrong[field.name] = field.type == .string ? .number(1) : field.type == .count ? .number(-1) : field.type == .time ? .string("yesterday") : .array([.number(1)])
                try add(Self.replacingItems(document, with: [.object(wrong)]), type: type, items: [.object(wrong)], valid: false, what: "\(type.rawValue) with a bad \(field.name)")
            }
            try add(Self.replacingItems(document, with: [.string("not an object")]), type: type, items: [.string("not an object")], valid: false, what: "\(type.rawValue) item not an object")
            if type.isSingleObject {
                try add(Self.replacingItems(document, with: items + items), type: type, items: items + items, valid: false, what: "two \(type.rawValue) items")
            }
        }
        #expect(cases.count > 100)

        let verdicts = try JSONSchemaValidator.validate(cases.map(\.file), against: Self.schemaURL)
        for entry in cases {
            let schemaError = verdicts[entry.file] ?? "not validated"
            var swiftError: String?
            do { try ComponentItemShape.validate(entry.items, for: entry.type) } catch { swiftError = error.reason }
            if entry.valid {
                #expect(schemaError == nil, "\(entry.what): the schema refuses it: \(schemaError ?? "")")
                #expect(swiftError == nil, "\(entry.what): the Swift check refuses it: \(swiftError ?? "")")
            } else {
                #expect(schemaError != nil, "\(entry.what): the schema accepts it")
                #expect(swiftError != nil, "\(entry.what): the Swift check accepts it")
            }
        }
    }

    static func type(of example: URL) throws -> ComponentType {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: example)) as? [String: Any])
        return try #require(ComponentType(rawValue: document["type"] as? String ?? ""))
    }

    static func replacingItems(_ document: [String: Any], with items: [JSONValue]) throws -> [String: Any] {
        var out = document
        out["items"] = try JSONSerialization.jsonObject(with: JSONEncoder().encode(items))
        out["count"] = items.count
        return out
    }
}
