@testable import BraidConfig
import Foundation

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
