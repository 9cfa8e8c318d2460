import BraidSources
import Foundation
import Testing

/// A freshly seeded corpus in a temporary file, removed afterwards.
enum CorpusFixture {
    static func withCorpus<T>(
        documents: Int = 800, users: Int = 30, seed: UInt64 = 7, _ body: (String) async throws -> T
    ) async throws -> T {
        let path = temporaryPath()
        defer { remove(path) }
        _ = try await CorpusWriter.seed(CorpusGenerator(seed: seed, documents: documents, users: users), path: path)
        return try await body(path)
    }

    /// A search source over a fresh corpus, shut down afterwards.
    static func withSource<T>(
        documents: Int = 800, _ body: (SQLiteSearchSource) async throws -> T
    ) async throws -> T {
        try await withCorpus(documents: documents) { path in
            let source = SQLiteSearchSource(path: path)
            return try await shuttingDown(source) { try await body(source) }
        }
    }

    /// A source of `kind` over a fresh corpus, shut down afterwards.
    static func withSource<T>(
        _ kind: EmbeddedSource, documents: Int = 800, _ body: (any SearchSource) async throws -> T
    ) async throws -> T {
        try await withCorpus(documents: documents) { path in
            let source = kind.source(path: path)
            return try await shuttingDown(source) { try await body(source) }
        }
    }

    /// `body`'s result, `source` shut down after it, whether it threw or not.
    private static func shuttingDown<T>(_ source: any SearchSource, _ body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            try await source.shutdown()
            return result
        } catch {
            try? await source.shutdown()
            throw error
        }
    }

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("braid-corpus-\(UUID().uuidString).sqlite").path
    }

    static func remove(_ path: String) {
        // The Xapian index a source built beside it too.
        for suffix in ["", "-journal", "-wal", "-shm", ".xapian"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    static func fixture(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
        return try Data(contentsOf: url)
    }
}

/// The embedded live sources, for tests that hold each to the same promises.
enum EmbeddedSource: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, xapian

    func source(path: String) -> any SearchSource {
        switch self {
        case .sqlite: SQLiteSearchSource(path: path)
        case .xapian: XapianSearchSource(corpusPath: path)
        }
    }

    var testDescription: String { rawValue }
}
