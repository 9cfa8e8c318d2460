import ArgumentParser
import BraidConfig
import BraidSources
import Foundation
import Synchronization

/// `braid seed`: writes the deterministic demo corpus into the SQLite file the embedded search
/// source reads, and/or imports someone's own documents from JSON Lines.
struct SeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Write the demo recipe corpus (and users) into the SQLite search index, or import JSON Lines.",
        discussion: """
            Without --import, replaces the database with --docs generated recipes (default 10000). \
            With --import, adds the documents of a JSON Lines file (one object per line with at least \
            "id" and "title"; bad lines are reported with their numbers and skipped); with --docs as \
            well, generates first and then imports.
            """)

    @Option(help: "Recipes to generate (replaces the database).") var docs: Int?
    @Option(help: "Users to generate (follows, recently viewed recipes, cooksnaps).") var users = 1_000
    @Option(help: "Database file (default: search.sqlite.path of the configuration).") var db: String?
    @Option(help: "Seed of the generator: the same seed gives the same corpus.") var seed: UInt64 = 42
    @Option(name: .customLong("import"), help: "JSON Lines file of documents to add.") var importFile: String?
    @Option(help: "Configuration file (YAML or JSON).") var config: String?

    func validate() throws {
        if let docs, !(0...10_000_000).contains(docs) { throw ValidationError("--docs must be 0 to 10000000") }
        guard (1...1_000_000).contains(users) else { throw ValidationError("--users must be 1 to 1000000") }
    }

    func run() async throws {
        let search = try ConfigurationLoader.load(file: config).search
        let path = db ?? search.sqlite.path
        let started = ContinuousClock.now
        if docs != nil || importFile == nil {
            let generator = CorpusGenerator(seed: seed, documents: docs ?? 10_000, users: users)
            let bar = ProgressBar(name: "seed")
            let summary = try await CorpusWriter.seed(generator, path: path) { progress in
                bar.update(progress.phase.rawValue, done: progress.done, total: progress.total)
            }
            bar.finish()
            print("seeded \(summary.recipes) recipes and \(summary.users) users into \(path) in \(Self.seconds(since: started)) s")
        }
        if let importFile {
            let data = try Data(contentsOf: URL(fileURLWithPath: importFile))
            let parsed = CorpusImport.parse(data)
            for bad in parsed.badLines.prefix(20) { Self.warn("\(importFile): \(bad)") }
            if parsed.badLines.count > 20 { Self.warn("\(importFile): … and \(parsed.badLines.count - 20) more bad lines") }
            try await CorpusWriter.add(parsed.recipes, path: path)
            print("imported \(parsed.recipes.count) documents into \(path); \(parsed.badLines.count) bad lines skipped")
        }
        if search.source == .xapian {
            // Now rather than on the first query, which would wait for it.
            let indexing = ContinuousClock.now
            let source = XapianSearchSource(corpusPath: path, indexPath: db == nil ? search.xapian.indexPath : nil)
            try await source.catchUp()
            try await source.shutdown()
            print("indexed \(path) into \(source.indexPath) in \(Self.seconds(since: indexing)) s")
        }
    }

    static func warn(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    static func seconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        let milliseconds = elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        return String(Double(milliseconds) / 1_000)
    }
}
