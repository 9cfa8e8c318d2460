// Braid's C face over libxapian (see include/xapian_shim.h): no exception crosses it.
#include "xapian_shim.h"

#include <xapian.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

struct braid_xapian_reader {
    Xapian::Database database;
};

struct braid_xapian_writer {
    Xapian::WritableDatabase database;
};

namespace {

char *copy(const std::string &text) {
    char *out = static_cast<char *>(std::malloc(text.size() + 1));
    if (out) {
        std::memcpy(out, text.data(), text.size());
        out[text.size()] = 0;
    }
    return out;
}

int fail(char **error, const std::string &message, int code = BRAID_XAPIAN_ERROR) {
    if (error) *error = copy(message);
    return code;
}

/// Runs `body`, turning Xapian's exceptions into codes.
template <typename Body> int guarded(char **error, Body body) {
    try {
        body();
        return BRAID_XAPIAN_OK;
    } catch (const Xapian::DatabaseLockError &e) {
        return fail(error, e.get_description(), BRAID_XAPIAN_LOCKED);
    } catch (const Xapian::DatabaseModifiedError &e) {
        return fail(error, e.get_description(), BRAID_XAPIAN_MODIFIED);
    } catch (const Xapian::DatabaseOpeningError &e) {
        return fail(error, e.get_description(), BRAID_XAPIAN_NOT_FOUND);
    } catch (const Xapian::Error &e) {
        return fail(error, e.get_description());
    } catch (const std::exception &e) {
        return fail(error, e.what());
    } catch (...) {
        return fail(error, "unknown error");
    }
}

/// OR of boolean id terms.
Xapian::Query anyOf(const char *const *terms, int count) {
    std::vector<Xapian::Query> parts;
    parts.reserve(count);
    for (int i = 0; i < count; i++) parts.emplace_back(terms[i]);
    return Xapian::Query(Xapian::Query::OP_OR, parts.begin(), parts.end());
}

Xapian::Query matchQuery(const braid_xapian_query &q) {
    std::vector<Xapian::Query> clauses;
    int next = 0;
    for (int c = 0; c < q.clause_count; c++) {
        int count = q.term_counts[c];
        switch (q.kinds[c]) {
        case BRAID_XAPIAN_PREFIX:
            // One synonym of every expansion, as FTS5 ranks a prefix phrase as one phrase.
            clauses.emplace_back(Xapian::Query::OP_WILDCARD, q.terms[next], 0, Xapian::Query::WILDCARD_LIMIT_ERROR,
                Xapian::Query::OP_SYNONYM);
            break;
        case BRAID_XAPIAN_PHRASE: {
            std::vector<Xapian::Query> terms;
            for (int t = 0; t < count; t++) terms.emplace_back(q.terms[next + t]);
            clauses.emplace_back(count == 1 ? terms[0] : Xapian::Query(Xapian::Query::OP_PHRASE, terms.begin(), terms.end(), count));
            break;
        }
        default:
            clauses.emplace_back(q.terms[next]);
        }
        next += count;
    }
    Xapian::Query match(Xapian::Query::OP_AND, clauses.begin(), clauses.end());
    if (q.has_only) {
        match = q.only_count == 0 ? Xapian::Query::MatchNothing : Xapian::Query(Xapian::Query::OP_FILTER, match, anyOf(q.only, q.only_count));
    }
    if (q.excluded_count > 0) match = Xapian::Query(Xapian::Query::OP_AND_NOT, match, anyOf(q.excluded, q.excluded_count));
    return match;
}

} // namespace

extern "C" {

void braid_xapian_free(void *pointer) { std::free(pointer); }

int braid_xapian_reader_open(const char *path, braid_xapian_reader **reader, char **error) {
    return guarded(error, [&] { *reader = new braid_xapian_reader{Xapian::Database(path)}; });
}

int braid_xapian_reader_reopen(braid_xapian_reader *reader, char **error) {
    return guarded(error, [&] { reader->database.reopen(); });
}

int braid_xapian_reader_metadata(braid_xapian_reader *reader, const char *key, char **value, char **error) {
    return guarded(error, [&] { *value = copy(reader->database.get_metadata(key)); });
}

int braid_xapian_reader_search(braid_xapian_reader *reader, const braid_xapian_query *query, braid_xapian_hits *hits, char **error) {
    std::memset(hits, 0, sizeof *hits);
    return guarded(error, [&] {
        const braid_xapian_query &q = *query;
        Xapian::Enquire enquire(reader->database);
        enquire.set_weighting_scheme(Xapian::BM25Weight(q.k1, 0, 1, q.b, 0.5));
        Xapian::Query match = matchQuery(q);
        switch (q.profile) {
        case BRAID_XAPIAN_POPULARITY_BOOSTED: {
            Xapian::ValueWeightPostingSource popularity(BRAID_XAPIAN_SLOT_POPULARITY_LOG);
            Xapian::Query boost(Xapian::Query::OP_SCALE_WEIGHT, Xapian::Query(&popularity), q.popularity_weight);
            enquire.set_query(Xapian::Query(Xapian::Query::OP_AND_MAYBE, match, boost));
            break;
        }
        case BRAID_XAPIAN_NEWEST:
            enquire.set_query(match);
            enquire.set_sort_by_value(BRAID_XAPIAN_SLOT_PUBLISHED_AT, true);
            break;
        default:
            enquire.set_query(match);
        }
        Xapian::MSet mset = enquire.get_mset(q.from, q.size, q.check_at_least);
        int count = static_cast<int>(mset.size());
        hits->docids = static_cast<unsigned *>(std::calloc(count + 1, sizeof(unsigned)));
        hits->scores = static_cast<double *>(std::calloc(count + 1, sizeof(double)));
        hits->data = static_cast<char **>(std::calloc(count + 1, sizeof(char *)));
        int index = 0;
        for (Xapian::MSetIterator it = mset.begin(); it != mset.end(); ++it, ++index) {
            hits->docids[index] = *it;
            Xapian::Document document = it.get_document();
            hits->scores[index] = q.profile == BRAID_XAPIAN_NEWEST
                ? Xapian::sortable_unserialise(document.get_value(BRAID_XAPIAN_SLOT_PUBLISHED_AT))
                : it.get_weight();
            hits->data[index] = copy(document.get_data());
        }
        hits->count = count;
        hits->matches_lower_bound = mset.get_matches_lower_bound();
        hits->matches_upper_bound = mset.get_matches_upper_bound();
    });
}

void braid_xapian_hits_free(braid_xapian_hits *hits) {
    for (int i = 0; i < hits->count; i++) std::free(hits->data[i]);
    std::free(hits->data);
    std::free(hits->docids);
    std::free(hits->scores);
    std::memset(hits, 0, sizeof *hits);
}

void braid_xapian_reader_close(braid_xapian_reader *reader) { delete reader; }

int braid_xapian_writer_open(const char *path, int overwrite, braid_xapian_writer **writer, char **error) {
    return guarded(error, [&] {
        int flags = overwrite ? Xapian::DB_CREATE_OR_OVERWRITE : Xapian::DB_CREATE_OR_OPEN;
        *writer = new braid_xapian_writer{Xapian::WritableDatabase(path, flags)};
    });
}

int braid_xapian_writer_replace(
    braid_xapian_writer *writer, unsigned docid, const char *id_term, const char *data, int count, const char *const *terms,
    const unsigned *wdfs, const unsigned *positions, double popularity_log, double published_at, char **error) {
    return guarded(error, [&] {
        Xapian::Document document;
        document.add_boolean_term(id_term);
        for (int i = 0; i < count; i++) {
            if (positions[i]) {
                document.add_posting(terms[i], positions[i], wdfs[i]);
            } else {
                document.add_term(terms[i], wdfs[i]);
            }
        }
        document.add_value(BRAID_XAPIAN_SLOT_POPULARITY_LOG, Xapian::sortable_serialise(popularity_log));
        document.add_value(BRAID_XAPIAN_SLOT_PUBLISHED_AT, Xapian::sortable_serialise(published_at));
        document.set_data(data);
        writer->database.replace_document(docid, document);
    });
}

int braid_xapian_writer_delete(braid_xapian_writer *writer, unsigned docid, char **error) {
    return guarded(error, [&] {
        try {
            writer->database.delete_document(docid);
        } catch (const Xapian::DocNotFoundError &) {
            // Already gone: a change log names a row once per write, not once per state.
        }
    });
}

int braid_xapian_writer_metadata(braid_xapian_writer *writer, const char *key, char **value, char **error) {
    return guarded(error, [&] { *value = copy(writer->database.get_metadata(key)); });
}

int braid_xapian_writer_set_metadata(braid_xapian_writer *writer, const char *key, const char *value, char **error) {
    return guarded(error, [&] { writer->database.set_metadata(key, value); });
}

int braid_xapian_writer_commit(braid_xapian_writer *writer, char **error) {
    return guarded(error, [&] { writer->database.commit(); });
}

void braid_xapian_writer_close(braid_xapian_writer *writer) {
    if (!writer) return;
    try {
        writer->database.close();
    } catch (...) {
    }
    delete writer;
}

} // extern "C"
