import BraidContracts
import CSQLiteNIOInterrupt
import Foundation
import Logging
import Metrics
import NIOCore
import NIOPosix
import SQLiteNIO
import Synchronization

/// A few read-only connections to one corpus file, opened on first use, each lent to one
/// task at a time.
///
/// A task holds its connection for one statement (``withConnection(_:)``) and others wait in
/// line (first come, first served) until one is handed back. Exclusive use is what lets a
/// statement be stopped: when the task is cancelled (a page's live query past its deadline,
/// ``SearchSource``), the pool calls SQLite's `sqlite3_interrupt` on that connection, the
/// statement fails at SQLite's next check, and the connection is handed on. With shared
/// connections the interrupt would stop whichever statement of another task ran there.
///
/// The connections run their statements on a thread pool of their own, one thread each:
/// sqlite-nio's default is NIO's shared blocking pool, as many threads as cores, where a few
/// slow statements queue every other statement (and file I/O) behind them, and a statement
/// still waiting for a thread cannot be interrupted.
///
/// Opening lazily lets a gateway start before `braid seed` has written the file: queries fail
/// as unavailable until it exists. The pool owns its connections and closes any it still
/// holds in `deinit`.
final class SQLiteConnectionPool: Sendable {
    /// One connection and the lease that holds it (none while it waits in the pool).
    final class Slot: Sendable {
        let index: Int
        let connection: SQLiteConnection
        private let handle: RawHandle?
        private let lease = Mutex<UInt64?>(nil)

        init(index: Int, connection: SQLiteConnection) {
            self.index = index
            self.connection = connection
            self.handle = RawHandle(of: connection)
        }

        var canInterrupt: Bool { handle != nil }

        /// The bytes of page cache the connection holds; nil without its handle. Read while
        /// the connection is idle (it waits for a running statement).
        func cacheBytes() -> Int? {
            guard let handle else { return nil }
            let bytes = braid_sqlite_nio_cache_used(UnsafeMutableRawPointer(handle.pointer))
            return bytes < 0 ? nil : Int(bytes)
        }

        fileprivate func begin(_ id: UInt64) { lease.withLock { $0 = id } }
        fileprivate func end() { lease.withLock { $0 = nil } }

        /// Interrupts the statement running here if lease `id` still holds the connection;
        /// false once it has been handed back. Under the lease's lock, so an interrupt can
        /// never reach a statement of the next lease (and SQLite clears an interrupt that
        /// arrives between statements when the next one starts).
        fileprivate func interrupt(_ id: UInt64) -> Bool {
            lease.withLock { current in
                guard current == id else { return false }
                if let handle { braid_sqlite_nio_interrupt(UnsafeMutableRawPointer(handle.pointer)) }
                return true
            }
        }
    }

    /// The `sqlite3 *` of a connection, read from sqlite-nio's stored property `handle.raw`
    /// (sqlite-nio does not expose it). It is a handle of sqlite-nio's own SQLite, which is the
    /// library ``braid_sqlite_nio_interrupt`` calls. Nil if a sqlite-nio release renames the
    /// property: statements then run to completion (uninterruptible), the pool logs it, and
    /// `SQLiteConnectionPoolTests` fails.
    struct RawHandle: @unchecked Sendable {
        let pointer: OpaquePointer

        init?(of connection: SQLiteConnection) {
            guard let handle = Mirror(reflecting: connection).descendant("handle"),
                let raw = Mirror(reflecting: handle).descendant("raw"),
                let pointer = raw as? OpaquePointer
            else { return nil }
            self.pointer = pointer
        }
    }

    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Slot, any Error>
    }

    private struct Open {
        var slots: [Slot]
        var free: [Int]
        var waiters: [Waiter] = []
        var tables: Set<String>
    }

    private enum State {
        case idle
        case open(Open)
        case closed
    }

    let path: String
    let size: Int
    /// `PRAGMA cache_size` of each connection, in KiB.
    let pageCacheKiB: Int
    private let state = Mutex<State>(.idle)
    /// What each connection's page cache held after its last statement; their sum is
    /// `braid_sqlite_page_cache_bytes{pool}` (no gauge: the pool is not exported).
    private let cacheBytes: Mutex<[Int]>
    private let cacheGauge: Gauge?
    private let counter = Atomic<UInt64>(0)
    private let threads: NIOThreadPool
    /// Set once ``shutdown()`` has stopped the threads, so that `deinit` does not again.
    private let threadsStopped = Atomic<Bool>(false)
    private let logger: Logger

    /// - Parameters:
    ///   - pageCacheMiB: page cache of each connection; each keeps its own copy of what it reads.
    ///   - name: the `pool` label of `braid_sqlite_page_cache_bytes`; nil, not exported.
    init(
        path: String, size: Int = 4, pageCacheMiB: Int = SQLiteSearchSource.Options.defaultPageCacheMiB, name: String? = nil,
        logger: Logger = Logger(label: "braid.sqlite")
    ) {
        self.path = path
        self.size = max(1, size)
        self.pageCacheKiB = max(1, pageCacheMiB) * 1024
        self.cacheBytes = Mutex([Int](repeating: 0, count: max(1, size)))
        self.cacheGauge = name.map { Gauge(label: MetricName.sqlitePageCacheBytes.rawValue, dimensions: [("pool", $0)]) }
        self.logger = logger
        self.threads = NIOThreadPool(numberOfThreads: self.size)
        threads.start()
    }

    deinit {
        // Closing completes on the thread pool, which stops once every close has run; each
        // pending close keeps its connection alive.
        var closes: [EventLoopFuture<Void>] = []
        if case .open(let open) = state.withLock({ $0 }) {
            closes = open.slots.map { $0.connection.close() as EventLoopFuture<Void> }
        }
        let threads = self.threads
        if threadsStopped.load(ordering: .acquiring) { return }
        if closes.isEmpty {
            threads.shutdownGracefully { _ in }
        } else {
            EventLoopFuture.andAllComplete(closes, on: closes[0].eventLoop).whenComplete { _ in
                threads.shutdownGracefully { _ in }
            }
        }
    }

    /// Runs `body` with a connection of its own; cancelling the task interrupts its statement.
    func withConnection<T: Sendable>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        let slot = try await acquire()
        let lease = counter.wrappingAdd(1, ordering: .relaxed).newValue
        slot.begin(lease)
        defer {
            slot.end()
            measureCache(of: slot)
            release(slot)
        }
        return try await withTaskCancellationHandler {
            try await body(slot.connection)
        } onCancel: {
            Self.interruptUntilReleased(slot, lease: lease)
        }
    }

    /// Records what `slot`'s page cache holds now that its statement is done: a page cache
    /// only grows towards its bound, so this shows how full the pool's caches are.
    private func measureCache(of slot: Slot) {
        guard let bytes = slot.cacheBytes() else { return }
        let total = cacheBytes.withLock { sizes in
            sizes[slot.index] = bytes
            return sizes.reduce(0, +)
        }
        cacheGauge?.record(total)
    }

    /// What the connections' page caches held after their last statements, together.
    var pageCacheBytes: Int { cacheBytes.withLock { $0.reduce(0, +) } }

    /// Interrupts the lease's statement, and again every 2 ms until the lease ends: SQLite
    /// forgets an interrupt that arrives before the statement starts (its work item on the
    /// way to its thread, or still being prepared).
    private static func interruptUntilReleased(_ slot: Slot, lease: UInt64) {
        guard slot.interrupt(lease) else { return }
        Task.detached {
            while slot.interrupt(lease) {
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
    }

    /// The file's tables when the connections were opened: each keeps the file it opened (a
    /// corpus written again in its place is a new file), so this holds as long as they do.
    func tables() async throws -> Set<String> {
        try await ensureOpen()
        return state.withLock { state in
            if case .open(let open) = state { return open.tables }
            return []
        }
    }

    func shutdown() async throws {
        let (slots, waiters): ([Slot], [Waiter]) = state.withLock { state in
            defer { state = .closed }
            if case .open(let open) = state { return (open.slots, open.waiters) }
            return ([], [])
        }
        for waiter in waiters { waiter.continuation.resume(throwing: shutDownError) }
        for slot in slots { try await Self.close(slot.connection) }
        if threadsStopped.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            try await threads.shutdownGracefully()
        }
    }

    private var shutDownError: SearchSourceError {
        SearchSourceError(.unavailable, "the SQLite source at \(path) has been shut down")
    }

    /// A free connection, or the first one handed back after the waiters before this one.
    private func acquire() async throws -> Slot {
        try await ensureOpen()
        let id = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Slot, any Error>) in
                let now: Result<Slot, any Error>? = state.withLock { state in
                    guard case .open(var open) = state else { return .failure(shutDownError) }
                    // Checked under the lock: a cancellation before this point finds no waiter.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let index = open.free.popLast() {
                        state = .open(open)
                        return .success(open.slots[index])
                    }
                    open.waiters.append(Waiter(id: id, continuation: continuation))
                    state = .open(open)
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let waiter: Waiter? = self.state.withLock { state in
                guard case .open(var open) = state, let at = open.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                let waiter = open.waiters.remove(at: at)
                state = .open(open)
                return waiter
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Hands the connection to the longest waiter, or back to the free list.
    private func release(_ slot: Slot) {
        let waiter: Waiter? = state.withLock { state in
            guard case .open(var open) = state else { return nil }
            if open.waiters.isEmpty {
                open.free.append(slot.index)
                state = .open(open)
                return nil
            }
            let waiter = open.waiters.removeFirst()
            state = .open(open)
            return waiter
        }
        waiter?.continuation.resume(returning: slot)
    }

    private func ensureOpen() async throws {
        enum Action { case ready, open, closed }
        let action: Action = state.withLock { state in
            switch state {
            case .idle: return .open
            case .closed: return .closed
            case .open: return .ready
            }
        }
        switch action {
        case .ready: return
        case .closed: throw shutDownError
        case .open: break
        }
        let (opened, tables) = try await openAll()
        // Two tasks may have opened at once: the first to install wins, the other closes its own.
        enum Install { case installed, lost, closed }
        let outcome: Install = state.withLock { state in
            switch state {
            case .idle:
                let slots = opened.enumerated().map { Slot(index: $0.offset, connection: $0.element) }
                state = .open(Open(slots: slots, free: Array(slots.indices.reversed()), tables: tables))
                return .installed
            case .open: return .lost
            case .closed: return .closed
            }
        }
        switch outcome {
        case .installed:
            if let first = opened.first, RawHandle(of: first) == nil {
                logger.error("cannot read sqlite-nio's connection handle: SQLite statements will not stop at their deadline")
            }
        case .lost:
            for extra in opened { try? await Self.close(extra) }
        case .closed:
            for extra in opened { try? await Self.close(extra) }
            throw shutDownError
        }
    }

    /// Closes whether or not the calling task is cancelled: the async `close()` gives up on a
    /// cancelled task and leaves the handle open, which a connection's deinit traps on (a page
    /// whose live query is cancelled while the pool opens would otherwise crash the process).
    static func close(_ connection: SQLiteConnection) async throws {
        try await (connection.close() as EventLoopFuture<Void>).get()
    }

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
                let connection = try await SQLiteConnection.open(
                    storage: .file(path: Self.readOnlyURI(path)), threadPool: threads, logger: logger,
                    on: MultiThreadedEventLoopGroup.singleton.any())
                connections.append(connection)
                // Negative: SQLite's unit for a size in KiB. Not `mmap_size`: a corpus copied over in
                // place would crash the process with SIGBUS instead of failing its queries.
                _ = try await connection.query("PRAGMA cache_size = -\(pageCacheKiB)", [])
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
