#include "CSQLiteNIOInterrupt.h"

struct sqlite3;

// Defined in sqlite-nio's VaporCSQLite (sqlite_nio_sqlite3.c), which every binary that links
// SQLiteNIO links too. Declared here because VaporCSQLite is not a product of sqlite-nio, so
// no target of this package may import its header.
extern void sqlite_nio_sqlite3_interrupt(struct sqlite3 *db);
extern int sqlite_nio_sqlite3_db_status(struct sqlite3 *db, int op, int *current, int *highwater, int reset);

// SQLITE_DBSTATUS_CACHE_USED in sqlite3.h.
static const int cache_used = 1;

void braid_sqlite_nio_interrupt(void *db) {
    sqlite_nio_sqlite3_interrupt((struct sqlite3 *)db);
}

long long braid_sqlite_nio_cache_used(void *db) {
    int current = 0, highwater = 0;
    if (sqlite_nio_sqlite3_db_status((struct sqlite3 *)db, cache_used, &current, &highwater, 0) != 0) return -1;
    return current;
}
