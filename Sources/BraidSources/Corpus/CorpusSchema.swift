/// Tables of the corpus database that `braid seed` writes and the SQLite source reads.
///
/// `recipes` holds the documents; two FTS5 indexes use it as external content (no second
/// copy of the text): `recipes_fts` with the `unicode61` tokenizer for space-separated
/// languages, with a prefix index of three-character prefixes (the shortest prefix a query
/// asks for, see ``FTSMatchExpression/minPrefixLength``; longer ones span few words), and `recipes_trigram` with the `trigram` tokenizer for substring matching of
/// Japanese and other CJK text (see ``FTSMatchExpression``). Users, follows, recently
/// viewed recipes and cooksnaps feed the component providers. `corpus_generation` holds one
/// random token that every write by braid replaces, and that any other write to `recipes`
/// withdraws (see ``newGeneration``). `recipe_changes` logs the row of every write to `recipes`
/// by any program, which the `xapian` source's index follows (``changeLog``).
public enum CorpusSchema {
    /// Created before loading; every statement is idempotent so imports can extend a corpus.
    static let tables: [String] = [
        """
        CREATE TABLE IF NOT EXISTS recipes (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            title TEXT NOT NULL,
            ingredients TEXT NOT NULL DEFAULT '',
            category TEXT NOT NULL DEFAULT '',
            author_id TEXT NOT NULL DEFAULT '',
            author TEXT NOT NULL DEFAULT '',
            published_at INTEGER NOT NULL DEFAULT 0,
            popularity INTEGER NOT NULL DEFAULT 0,
            popularity_log REAL NOT NULL DEFAULT 0
        )
        """,
        "CREATE TABLE IF NOT EXISTS corpus_generation (generation TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS recipe_ingredients (recipe_id TEXT NOT NULL, ingredient TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS users (id TEXT PRIMARY KEY, name TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS follows (user_id TEXT NOT NULL, author_id TEXT NOT NULL, PRIMARY KEY (user_id, author_id))",
        "CREATE TABLE IF NOT EXISTS views (user_id TEXT NOT NULL, recipe_id TEXT NOT NULL, viewed_at INTEGER NOT NULL, PRIMARY KEY (user_id, recipe_id))",
        """
        CREATE TABLE IF NOT EXISTS cooksnaps (
            id TEXT PRIMARY KEY, user_id TEXT NOT NULL, recipe_id TEXT NOT NULL,
            created_at INTEGER NOT NULL, comment TEXT NOT NULL DEFAULT ''
        )
        """,
        """
        CREATE VIRTUAL TABLE IF NOT EXISTS recipes_fts USING fts5(
            title, ingredients, category,
            content='recipes', content_rowid='seq', tokenize='unicode61 remove_diacritics 2', prefix='3'
        )
        """,
        """
        CREATE VIRTUAL TABLE IF NOT EXISTS recipes_trigram USING fts5(
            title, ingredients,
            content='recipes', content_rowid='seq', tokenize='trigram'
        )
        """,
    ]

    /// Created after bulk loading, which is faster than maintaining them row by row.
    static let indexes: [String] = [
        "CREATE INDEX IF NOT EXISTS recipes_category_popularity ON recipes (category, popularity DESC, id)",
        "CREATE INDEX IF NOT EXISTS recipes_published ON recipes (published_at DESC, id)",
        "CREATE INDEX IF NOT EXISTS recipes_popularity ON recipes (popularity DESC, id)",
        "CREATE INDEX IF NOT EXISTS recipes_author ON recipes (author_id, published_at DESC)",
        "CREATE INDEX IF NOT EXISTS recipe_ingredients_ingredient ON recipe_ingredients (ingredient)",
        "CREATE INDEX IF NOT EXISTS recipe_ingredients_recipe ON recipe_ingredients (recipe_id)",
        "CREATE INDEX IF NOT EXISTS cooksnaps_user ON cooksnaps (user_id, created_at DESC)",
    ]

    /// Replaces the corpus's generation, at the end of the transaction of every write to
    /// `recipes` by braid, after the indexes are rebuilt: the SQLite source reports it with each
    /// result, and a snapshot ranked in it lets a gateway skip counting A without B
    /// (``SearchResult/matchGeneration``). Random, not a counter: a corpus written again from
    /// scratch must not repeat an earlier corpus's generation.
    static let newGeneration: [String] = [
        "DELETE FROM corpus_generation",
        "INSERT INTO corpus_generation (generation) VALUES (lower(hex(randomblob(16))))",
    ]

    /// Any write to `recipes`, by any program, empties `corpus_generation`, so a corpus changed
    /// by a writer that knows nothing of generations reports none (gateways then count, as for a
    /// corpus without the table) instead of vouching for match sets it no longer has. Row
    /// triggers, as SQLite has no others, run once per row written, which a bulk load feels,
    /// so writers create them after loading, with the indexes, rather than before.
    static let generationTriggers: [String] = ["INSERT", "UPDATE", "DELETE"].map { event in
        """
        CREATE TRIGGER IF NOT EXISTS recipes_\(event.lowercased())_withdraws_generation AFTER \(event) ON recipes
        BEGIN DELETE FROM corpus_generation; END
        """
    }

    /// The change log a Xapian index follows (``XapianIndexer``): every insert, update and
    /// delete of a `recipes` row, by any program, appends the row's `seq` in the writer's
    /// transaction, so an index that has applied the log up to a change has seen every write
    /// committed before it. `corpus_identity` names this corpus file (a corpus seeded again is
    /// another one, whose log starts over) and how far the log was pruned: an index behind
    /// that point is built again. Created with the other triggers after a bulk load, which an
    /// index then reads whole.
    public static let changeLog: [String] = [
        "CREATE TABLE IF NOT EXISTS recipe_changes (change INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS corpus_identity (id TEXT NOT NULL, pruned_through INTEGER NOT NULL DEFAULT 0)",
        "INSERT INTO corpus_identity (id) SELECT lower(hex(randomblob(16))) WHERE NOT EXISTS (SELECT 1 FROM corpus_identity)",
        """
        CREATE TRIGGER IF NOT EXISTS recipes_insert_logs_change AFTER INSERT ON recipes
        BEGIN INSERT INTO recipe_changes (seq) VALUES (NEW.seq); END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS recipes_update_logs_change AFTER UPDATE ON recipes
        BEGIN INSERT INTO recipe_changes (seq) SELECT OLD.seq UNION SELECT NEW.seq; END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS recipes_delete_logs_change AFTER DELETE ON recipes
        BEGIN INSERT INTO recipe_changes (seq) VALUES (OLD.seq); END
        """,
    ]

    /// The end of every write by braid, in its transaction: indexes, both full-text indexes
    /// re-read, the triggers, and a new generation last, so nothing after it withdraws it.
    static let finishWrite: [String] = indexes + rebuildIndexes + generationTriggers + changeLog + newGeneration

    /// Re-reads the external content into both full-text indexes.
    static let rebuildIndexes: [String] = [
        "INSERT INTO recipes_fts(recipes_fts) VALUES ('rebuild')",
        "INSERT INTO recipes_trigram(recipes_trigram) VALUES ('rebuild')",
    ]
}
