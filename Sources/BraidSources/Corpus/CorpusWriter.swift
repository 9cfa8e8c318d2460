import Foundation
import Logging
import SQLiteNIO

/// Writes corpora into SQLite files: the I/O half of `braid seed` (``CorpusGenerator`` is the
/// pure half). All statements run on NIO's thread pool through sqlite-nio, never on the
/// cooperative pool.
public enum CorpusWriter {
    /// Where loading is; `done` counts recipes, then users, and `total` is fixed per phase.
    public struct Progress: Sendable, Hashable {
        public enum Phase: String, Sendable { case recipes, users, indexing }
        public var phase: Phase
        public var done: Int
        public var total: Int

        public init(phase: Phase, done: Int, total: Int) {
            self.phase = phase
            self.done = done
            self.total = total
        }
    }

    public struct Summary: Sendable, Hashable {
        public var recipes: Int
        public var users: Int

        public init(recipes: Int, users: Int) {
            self.recipes = recipes
            self.users = users
        }
    }

    static let recipesPerBatch = 2_000
    static let usersPerBatch = 1_000

    /// Replaces the file at `path` with the generator's corpus, in one transaction.
    public static func seed(
        _ generator: CorpusGenerator, path: String, progress: @Sendable (Progress) -> Void = { _ in }
    ) async throws -> Summary {
        try removeDatabase(at: path)
        let connection = try await openForWriting(path: path)
        do {
            try await connection.inTransaction {
                try await connection.execute(CorpusSchema.tables)
                var start = 0
                while start < generator.documents {
                    let recipes = (start..<min(start + recipesPerBatch, generator.documents)).map(generator.recipe(at:))
                    try await connection.insert(into: "recipes", columns: CorpusRows.recipeColumns, rows: recipes.map(CorpusRows.recipe))
                    try await connection.insert(
                        into: "recipe_ingredients", columns: ["recipe_id", "ingredient"], rows: recipes.flatMap(CorpusRows.ingredients))
                    start += recipes.count
                    progress(Progress(phase: .recipes, done: start, total: generator.documents))
                }
                start = 0
                while start < generator.users {
                    let users = (start..<min(start + usersPerBatch, generator.users)).map(generator.user(at:))
                    for table in CorpusRows.userTables(users) {
                        try await connection.insert(into: table.table, columns: table.columns, rows: table.rows)
                    }
                    start += users.count
                    progress(Progress(phase: .users, done: start, total: generator.users))
                }
                progress(Progress(phase: .indexing, done: 0, total: 1))
                try await connection.execute(CorpusSchema.finishWrite)
                progress(Progress(phase: .indexing, done: 1, total: 1))
            }
            try await finish(connection)
        } catch {
            try? await connection.close()
            throw error
        }
        return Summary(recipes: generator.documents, users: generator.users)
    }

    /// Adds (or replaces, by id) recipes in the corpus at `path`, creating it when missing.
    public static func add(_ recipes: [CorpusRecipe], path: String) async throws {
        let connection = try await openForWriting(path: path)
        do {
            try await connection.inTransaction {
                try await connection.execute(CorpusSchema.tables)
                var start = 0
                while start < recipes.count {
                    let batch = recipes[start..<min(start + recipesPerBatch, recipes.count)]
                    let ids = batch.map { SQLiteData.text($0.id) }
                    _ = try await connection.query(
                        "DELETE FROM recipe_ingredients WHERE recipe_id IN (" + Array(repeating: "?", count: ids.count).joined(separator: ",") + ")",
                        ids)
                    try await connection.insert(
                        into: "recipes", columns: CorpusRows.recipeColumns, rows: batch.map(CorpusRows.recipe), orReplace: true)
                    try await connection.insert(
                        into: "recipe_ingredients", columns: ["recipe_id", "ingredient"], rows: batch.flatMap(CorpusRows.ingredients))
                    start += batch.count
                }
                try await connection.execute(CorpusSchema.finishWrite)
            }
            try await finish(connection)
        } catch {
            try? await connection.close()
            throw error
        }
    }

    static func openForWriting(path: String) async throws -> SQLiteConnection {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: Logger(label: "braid.corpus"))
        // A bulk load into a file nobody reads yet: the rollback journal in memory is enough.
        _ = try await connection.query("PRAGMA journal_mode = MEMORY", [])
        _ = try await connection.query("PRAGMA synchronous = OFF", [])
        // Gateways may be reading the file: wait for their read locks instead of failing.
        _ = try await connection.query("PRAGMA busy_timeout = 10000", [])
        // `INSERT OR REPLACE` deletes the row it replaces; only with recursive triggers does
        // that deletion reach the change log (``CorpusSchema/changeLog``).
        _ = try await connection.query("PRAGMA recursive_triggers = ON", [])
        return connection
    }

    private static func finish(_ connection: SQLiteConnection) async throws {
        _ = try await connection.query("ANALYZE", [])
        try await connection.close()
    }

    static func removeDatabase(at path: String) throws {
        for suffix in ["", "-journal", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}
