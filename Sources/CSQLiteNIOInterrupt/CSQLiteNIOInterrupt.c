#include "CSQLiteNIOInterrupt.h"

struct sqlite3;

// Defined in sqlite-nio's VaporCSQLite (sqlite_nio_sqlite3.c), which every binary that links
// SQLiteNIO links too. Declared here because VaporCSQLite is not a product of sqlite-nio, so
// no target of this package may import its header.
extern void sqlite_nio_sqlite3_interrupt(struct sqlite3 *db);

void braid_sqlite_nio_interrupt(void *db) {
    sqlite_nio_sqlite3_interrupt((struct sqlite3 *)db);
}
