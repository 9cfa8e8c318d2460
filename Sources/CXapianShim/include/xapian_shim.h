#ifndef BRAID_XAPIAN_SHIM_H
#define BRAID_XAPIAN_SHIM_H

// A small C face over libxapian 1.4 for Braid's embedded search source: a read handle that
// runs one query, and a write handle that replaces and deletes documents. Every function
// catches Xapian's exceptions; on failure it returns an error code and, when `error` is not
// NULL, a message to release with braid_xapian_free.

#ifdef __cplusplus
extern "C" {
#endif

typedef struct braid_xapian_reader braid_xapian_reader;
typedef struct braid_xapian_writer braid_xapian_writer;

enum {
    BRAID_XAPIAN_OK = 0,
    BRAID_XAPIAN_ERROR = 1,
    /// Another handle holds the database's write lock.
    BRAID_XAPIAN_LOCKED = 2,
    /// The revision read was overwritten by a writer: reopen and run again.
    BRAID_XAPIAN_MODIFIED = 3,
    /// No database at the path.
    BRAID_XAPIAN_NOT_FOUND = 4,
};

/// How one clause of a query matches; clauses are AND-ed.
enum {
    /// One term, exactly.
    BRAID_XAPIAN_TERM = 0,
    /// Every term that starts with the clause's term, weighted as one term (OP_SYNONYM).
    BRAID_XAPIAN_PREFIX = 1,
    /// The clause's terms at consecutive positions (OP_PHRASE).
    BRAID_XAPIAN_PHRASE = 2,
};

/// Ranking profiles, as Braid names them.
enum {
    BRAID_XAPIAN_RELEVANCE = 0,
    BRAID_XAPIAN_POPULARITY_BOOSTED = 1,
    BRAID_XAPIAN_NEWEST = 2,
};

/// Value slots every document carries (sortable_serialise'd doubles).
enum {
    BRAID_XAPIAN_SLOT_POPULARITY_LOG = 0,
    BRAID_XAPIAN_SLOT_PUBLISHED_AT = 1,
};

typedef struct {
    int clause_count;
    /// Per clause: its kind and how many of `terms` it takes, in order.
    const int *kinds;
    const int *term_counts;
    const char *const *terms;
    int profile;
    double popularity_weight;
    /// BM25's k1 and b.
    double k1;
    double b;
    /// Boolean terms of documents left out, and (when `has_only`) the only ones kept.
    const char *const *excluded;
    int excluded_count;
    int has_only;
    const char *const *only;
    int only_count;
    unsigned from;
    unsigned size;
    /// Count exactly at least this many matches (Xapian's check_at_least).
    unsigned check_at_least;
} braid_xapian_query;

typedef struct {
    int count;
    unsigned *docids;
    double *scores;
    /// The document data of each hit (the Braid id), NUL-terminated.
    char **data;
    unsigned matches_lower_bound;
    unsigned matches_upper_bound;
} braid_xapian_hits;

void braid_xapian_free(void *pointer);

int braid_xapian_reader_open(const char *path, braid_xapian_reader **reader, char **error);
/// Moves the handle to the latest committed revision.
int braid_xapian_reader_reopen(braid_xapian_reader *reader, char **error);
/// The value of a metadata key at the handle's revision ("" when unset); release with braid_xapian_free.
int braid_xapian_reader_metadata(braid_xapian_reader *reader, const char *key, char **value, char **error);
int braid_xapian_reader_search(braid_xapian_reader *reader, const braid_xapian_query *query, braid_xapian_hits *hits, char **error);
void braid_xapian_hits_free(braid_xapian_hits *hits);
void braid_xapian_reader_close(braid_xapian_reader *reader);

/// Opens (creating when `create` is set and nothing is there, overwriting when `overwrite`)
/// and takes the write lock; BRAID_XAPIAN_LOCKED when another handle has it.
int braid_xapian_writer_open(const char *path, int overwrite, braid_xapian_writer **writer, char **error);
/// Replaces document `docid`: `id_term` (boolean), then `count` terms with their wdf and, when
/// not 0, a position.
int braid_xapian_writer_replace(
    braid_xapian_writer *writer, unsigned docid, const char *id_term, const char *data, int count, const char *const *terms,
    const unsigned *wdfs, const unsigned *positions, double popularity_log, double published_at, char **error);
int braid_xapian_writer_delete(braid_xapian_writer *writer, unsigned docid, char **error);
/// The value of a metadata key as the writer sees it, uncommitted changes included.
int braid_xapian_writer_metadata(braid_xapian_writer *writer, const char *key, char **value, char **error);
int braid_xapian_writer_set_metadata(braid_xapian_writer *writer, const char *key, const char *value, char **error);
int braid_xapian_writer_commit(braid_xapian_writer *writer, char **error);
/// Releases the lock (libxapian commits what was left uncommitted).
void braid_xapian_writer_close(braid_xapian_writer *writer);

#ifdef __cplusplus
}
#endif

#endif
