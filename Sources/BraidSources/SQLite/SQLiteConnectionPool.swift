import Foundation
import Logging
import NIOCore
import SQLiteNIO
import Synchronization

/// A few read-only connections to one corpus file, opened on first use and shared round-robin.
///
/// Each sqlite-nio connection serialises its own statements (SQLite's full mutex) and runs
/// them on NIO's thread pool, so handing the same connection to several tasks is safe; more
/// than one connection lets queries of different tasks run in parallel. Opening lazily lets a
/// gateway start before `braid seed` has written the file: queries fail as unavailable until
/// it exists. The pool owns its connections and closes any it still holds in `deinit`.
final class SQLiteConnectionPool: Sendable {
    private enum State {
        case idle
        case open([SQLiteConnection], next: Int, tables: Set<String>)
        case closed
    }

    let path: String
    let size: Int
    private let state = Mutex<State>(.idle)
    private let logger: Logger

    init(path: String, size: Int = 4, logger: Logger = Logger(label: "braid.sqlite")) {
        self.path = path
        self.size = max(1, size)
        self.logger = logger
    }

    deinit {
        // Closing completes on the thread pool; each pending close keeps its connection alive.
        if case .open(let connections, _, _) = state.withLock({ $0 }) {
            for connection in connections { _ = connection.close() as EventLoopFuture<Void> }
        }
    }

    func withConnection<T: Sendable>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        try await body(try await connection())
    }

    /// The file's tables when the connections were opened: each keeps the file it opened (a
    /// corpus written again in its place is a new file), so this holds as long as they do.
    func tables() async throws -> Set<String> {
        _ = try await connection()
        return state.withLock { state in
            if case .open(_, _, let tables) = state { return tables }
            return []
        }
    }

    func shutdown() async throws {
        let connections: [SQLiteConnection] = state.withLock { state in
            defer { state = .closed }
            if case .open(let connections, _, _) = state { return connections }
            return []
        }
        for connection in connections { try await Self.close(connection) }
    }

    private func connection() async throws -> SQLiteConnection {
        enum Action { case use(SQLiteConnection), open, closed }
        let action: Action = state.withLock { state in
            switch state {
            case .idle: return .open
            case .closed: return .closed
            case .open(let connections, let next, let tables):
                state = .open(connections, next: (next + 1) % connections.count, tables: tables)
                return .use(connections[next])
            }
        }
        switch action {
        case .use(let connection): return connection
        case .closed: throw SearchSourceError(.unavailable, "the SQLite source at \(path) has been shut down")
        case .open: break
        }
        let (opened, tables) = try await openAll()
        // Two tasks may have opened at once: the first to install wins, the other closes its own.
        enum Install { case installed(SQLiteConnection), lost(SQLiteConnection), closed }
        let outcome: Install = state.withLock { state in
            switch state {
            case .idle:
                state = .open(opened, next: 1 % opened.count, tables: tables)
                return .installed(opened[0])
            case .open(let connections, let next, let known):
                state = .open(connections, next: (next + 1) % connections.count, tables: known)
                return .lost(connections[next])
            case .closed:
                return .closed
            }
        }
        switch outcome {
        case .installed(let connection):
            return connection
        case .lost(let connection):
            for extra in opened { try? await Self.close(extra) }
            return connection
        case .closed:
            for extra in opened { try? await Self.close(extra) }
            throw SearchSourceError(.unavailable, "the SQLite source at \(path) has been shut down")
        }
    }

    /// Closes whether or not the calling task is cancelled: the async `close()` gives up on a
    /// cancelled task and leaves the handle open, which a connection's deinit traps on (a page
    /// whose live query is cancelled while the pool opens would otherwise crash the process).
    static func close(_ connection: SQLiteConnection) async throws {
        try await (connection.close() as EventLoopFuture<Void>).get()
    }

    /// Page cache per connection, in KiB (negative: SQLite's unit for a size). With the default
    /// 2 MiB, pages of a 20,000-recipe corpus (17 MB) were read again through `pread` on every
    /// search, 12-16 % of its CPU in `perf`; with 32 MiB the "curry" page query ran faster in
    /// each of four paired runs of a C loop over the same SQLite build (e.g. 5.3 → 4.5 ms).
    /// Not `mmap_size`: a corpus copied over in place would crash the process with SIGBUS
    /// instead of failing its queries.
    static let cacheKiB = -32_768

    /// How long a query waits for another program's write to the corpus to commit (SQLite
    /// locks the file while it does) before it fails as unavailable: as long as a gateway waits
    /// for a live query by default (`gateway.live_timeout_ms`). sqlite-nio's own busy handler
    /// retries at once and forever, a thread spinning for as long as the lock is held.
    static let busyTimeoutMs = 1_000

    private func openAll() async throws -> ([SQLiteConnection], tables: Set<String>) {
        // Opening read-write would create an empty file where the corpus should be.
        guard FileManager.default.fileExists(atPath: path) else {
            throw SearchSourceError(.unavailable, "no corpus database at \(path): run `braid seed` first")
        }
        var connections: [SQLiteConnection] = []
        do {
            for _ in 0..<size {
                let connection = try await SQLiteConnection.open(storage: .file(path: Self.readOnlyURI(path)), logger: logger)
                connections.append(connection)
                _ = try await connection.query("PRAGMA cache_size = \(Self.cacheKiB)", [])
                _ = try await connection.query("PRAGMA busy_timeout = \(Self.busyTimeoutMs)", [])
            }
            let tables = try await connections[0].query("SELECT name FROM sqlite_master WHERE type = 'table'", [])
            return (connections, Set(tables.compactMap { $0.column("name")?.string }))
        } catch {
            for connection in connections { try? await Self.close(connection) }
            throw SearchSourceError(.unavailable, "cannot open corpus database at \(path): \(error)")
        }
    }

    /// A `file:` URI opening `path` read-only (sqlite-nio opens with SQLITE_OPEN_URI).
    static func readOnlyURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var escaped = ""
        for character in absolute {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3F"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        return "file:" + escaped + "?mode=ro"
    }
}
