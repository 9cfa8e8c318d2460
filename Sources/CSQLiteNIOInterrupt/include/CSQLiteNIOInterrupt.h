#ifndef C_SQLITE_NIO_INTERRUPT_H
#define C_SQLITE_NIO_INTERRUPT_H

/// Calls `sqlite3_interrupt` on `db`, a `sqlite3 *` handle opened by sqlite-nio (vapor/sqlite-nio).
///
/// sqlite-nio links its own copy of SQLite (the amalgamation vendored as its target
/// `VaporCSQLite`, every public symbol renamed `sqlite_nio_sqlite3_*`), not the system's
/// libsqlite3; this calls that copy's `sqlite3_interrupt`, so the handle and the function
/// belong to the same library. Safe from any thread while the connection is open: SQLite
/// documents `sqlite3_interrupt` as callable from another thread than the one running the
/// statement, and the statement then fails with SQLITE_INTERRUPT at its next check.
void braid_sqlite_nio_interrupt(void *db);

/// The bytes of page cache `db` holds (`sqlite3_db_status` with `SQLITE_DBSTATUS_CACHE_USED`,
/// in sqlite-nio's copy of SQLite, like the interrupt), or -1 if SQLite refuses. sqlite-nio
/// builds SQLite serialized, so this takes the connection's mutex: called while a statement
/// runs on `db`, it waits for that statement's step.
long long braid_sqlite_nio_cache_used(void *db);

#endif
