import Foundation

/// Files of this repository that tests read (schemas, examples, scripts).
public enum RepositoryPaths {
    /// The package root, found from this file's location (Tests/BraidTestSupport/…).
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static var schemas: URL { root.appendingPathComponent("Schemas", isDirectory: true) }

    /// The project virtualenv's Python (jsonschema, schemathesis), installed by bootstrap.sh.
    public static var python: URL { root.appendingPathComponent(".venv/bin/python") }

    /// JSON files directly inside a folder, sorted by name.
    public static func jsonFiles(in folder: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}
