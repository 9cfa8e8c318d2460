import BraidCore
import Logging
import SQLiteNIO

/// Component contents computed from the corpus database (``ComponentQueries``).
public struct SQLiteComponentProvider: ComponentProvider {
    public let path: String
    private let pool: SQLiteConnectionPool

    /// - Parameter pageCacheMiB: page cache of each connection (`search.sqlite.page_cache_mib`).
    public init(
        path: String, connections: Int = 2, pageCacheMiB: Int = SQLiteSearchSource.Options.defaultPageCacheMiB,
        logger: Logger = Logger(label: "braid.components.sqlite")
    ) {
        self.path = path
        self.pool = SQLiteConnectionPool(path: path, size: connections, pageCacheMiB: pageCacheMiB, name: "components", logger: logger)
    }

    public func items(_ request: ComponentRequest) async throws -> ComponentPage {
        try request.validate()
        guard let statement = try ComponentQueries.statement(for: request) else { return ComponentPage(items: [], nextOffset: nil) }
        let rows: [SQLiteRow]
        do {
            rows = try await pool.withConnection { try await $0.query(statement.sql, statement.binds) }
        } catch let error as SearchSourceError {
            throw ComponentProviderError(.unavailable, error.message)
        } catch let error as SQLiteError {
            throw ComponentProviderError(.unavailable, "corpus query failed at \(path): \(error)")
        }
        let more = rows.count > request.limit
        return ComponentPage(
            items: rows.prefix(request.limit).map(statement.item),
            nextOffset: more ? request.offset + request.limit : nil)
    }

    public func shutdown() async throws {
        try await pool.shutdown()
    }
}
