import SQLiteNIO

extension SQLiteConnection {
    /// Runs statements one by one: SQLite prepares only the first statement of a string.
    func execute(_ statements: [String]) async throws {
        for statement in statements {
            _ = try await query(statement, [])
        }
    }

    /// Inserts rows with multi-row `INSERT`s of at most `maxBinds` parameters each: one prepared
    /// statement per few hundred rows instead of one per row.
    func insert(
        into table: String, columns: [String], rows: [[SQLiteData]], orReplace: Bool = false, maxBinds: Int = 30_000
    ) async throws {
        guard !rows.isEmpty else { return }
        let rowsPerStatement = max(1, maxBinds / columns.count)
        let tuple = "(" + Array(repeating: "?", count: columns.count).joined(separator: ",") + ")"
        let head = (orReplace ? "INSERT OR REPLACE INTO " : "INSERT INTO ") + table
            + " (" + columns.joined(separator: ", ") + ") VALUES "
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + rowsPerStatement, rows.count)]
            let sql = head + Array(repeating: tuple, count: chunk.count).joined(separator: ",")
            _ = try await query(sql, chunk.flatMap { $0 })
            start += chunk.count
        }
    }

    /// Runs `body` inside one transaction, rolled back when it throws.
    func inTransaction<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        _ = try await query("BEGIN IMMEDIATE", [])
        do {
            let result = try await body()
            _ = try await query("COMMIT", [])
            return result
        } catch {
            _ = try? await query("ROLLBACK", [])
            throw error
        }
    }
}

extension SQLiteData {
    init(_ value: Int64) { self = .integer(SQLiteInt64(value)) }
}
