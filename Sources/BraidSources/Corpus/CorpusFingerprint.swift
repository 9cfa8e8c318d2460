import SQLiteNIO

/// A 64-bit FNV-1a digest of every row of a corpus, in a fixed order: equal corpora have equal
/// fingerprints, so determinism is checkable without comparing files byte by byte (SQLite
/// page layout may differ between equal databases).
public enum CorpusFingerprint {
    static let queries = [
        "SELECT id, title, ingredients, category, author_id, author, published_at, popularity FROM recipes ORDER BY id",
        "SELECT recipe_id, ingredient FROM recipe_ingredients ORDER BY recipe_id, ingredient",
        "SELECT id, name FROM users ORDER BY id",
        "SELECT user_id, author_id FROM follows ORDER BY user_id, author_id",
        "SELECT user_id, recipe_id, viewed_at FROM views ORDER BY user_id, recipe_id",
        "SELECT id, user_id, recipe_id, created_at, comment FROM cooksnaps ORDER BY id",
    ]

    public static func compute(path: String) async throws -> String {
        let pool = SQLiteConnectionPool(path: path, size: 1)
        do {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for query in queries {
                let rows = try await pool.withConnection { try await $0.query(query, []) }
                for row in rows {
                    for column in row.columns {
                        for byte in column.data.description.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
                        hash = (hash ^ 0x1F) &* 0x0000_0100_0000_01B3
                    }
                    hash = (hash ^ 0x1E) &* 0x0000_0100_0000_01B3
                }
            }
            try await pool.shutdown()
            return String(hash, radix: 16)
        } catch {
            try? await pool.shutdown()
            throw error
        }
    }
}
