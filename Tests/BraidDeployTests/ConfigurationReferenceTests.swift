@testable import BraidConfig
import BraidCore
import Foundation
import Testing

/// docs/configuration.md documents every option with its default, and nothing else: each leaf
/// of the encoded defaults (snake_case, as files write them) has a row `| \`key\` | \`default\` | … |`,
/// every row names an option that exists, and the documented default is the code's.
@Suite("configuration reference")
struct ConfigurationReferenceTests {
    /// Maps whose keys are names a user chooses: one row each, its default described in words.
    static let openMaps = ConfigurationLoader.openMaps

    /// Every option's dotted key and its default as the reference writes it (nil: an open map,
    /// whose row may describe its default in words).
    static func options() throws -> [String: String?] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let tree = try JSONValue.parse(try encoder.encode(BraidConfiguration()))
        var options: [String: String?] = [:]
        func walk(_ value: JSONValue, path: [String]) {
            let key = path.joined(separator: ".")
            if openMaps.contains(key) {
                options[key] = .some(nil)
            } else if case .object(let map) = value {
                // A section; one whose options are all unset encodes as {} (they are added below).
                for (name, child) in map { walk(child, path: path + [name]) }
            } else {
                options[key] = .some(render(value))
            }
        }
        walk(tree, path: [])
        for key in ConfigurationLoader.knownOptionalKeys { options[key] = .some("unset") }
        return options
    }

    /// A default as YAML would write it: strings bare (empty as `""`), numbers without a
    /// needless `.0`, lists in brackets.
    static func render(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .string(let text): return text.isEmpty ? "\"\"" : text
        case .number(let number): return number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .array(let list): return "[" + list.map(render).joined(separator: ", ") + "]"
        case .object: return "{}"
        }
    }

    /// The rows of the reference: key → documented default.
    static func documented() throws -> [String: String] {
        let text = try String(contentsOf: Deploy.root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        var rows: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, cells[1].hasPrefix("`"), cells[1].hasSuffix("`") else { continue }
            let key = String(cells[1].dropFirst().dropLast())
            var value = cells[2]
            if value.hasPrefix("`"), value.hasSuffix("`"), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            rows[key] = value
        }
        return rows
    }

    @Test func everyOptionIsDocumentedWithItsDefaultAndNothingElse() throws {
        let options = try Self.options()
        let rows = try Self.documented()
        #expect(options.count > 100, "\(options.count) options: the walk found too few to mean anything")
        let missing = options.keys.filter { rows[$0] == nil }.sorted()
        #expect(missing.isEmpty, "options not in docs/configuration.md: \(missing)")
        let unknown = rows.keys.filter { options[$0] == nil }.sorted()
        #expect(unknown.isEmpty, "docs/configuration.md documents options that do not exist: \(unknown)")
        for (key, expected) in options.sorted(by: { $0.key < $1.key }) {
            guard let expected, let row = rows[key] else { continue }
            #expect(row == expected, "\(key): documented default \(row), the code's is \(expected)")
        }
    }
}
