import BraidHarness
import BraidSources
import Foundation
import SQLiteNIO

/// The scale group's corpora, seeded with `braid seed` once and kept in `.run/scale-corpora/`
/// (outside the run's own folder, which is removed), named by size and by a fingerprint of
/// what `braid seed` writes: the rows (``CorpusFingerprint``) and schema of a 2,000-recipe corpus
/// seeded by the same binary. A later run with the same generator and schema reuses them and
/// reports the seed time first measured; a change to either (vocabulary, tokenizers, indexes)
/// seeds again, and corpora of other fingerprints are removed.
struct ScaleCorpora {
    let context: BenchmarkContext
    /// Users of every corpus: the author ids of recipes depend on it (``CorpusGenerator/authorCount``).
    static let users = 200

    static var folder: URL { Toolchain.root.appendingPathComponent(".run/scale-corpora", isDirectory: true) }

    struct Corpus {
        var file: URL
        /// Seeding, the search index's build included.
        var seconds: Double
        var bytes: Int
        /// The Xapian index beside the corpus (`braid seed` builds it), and its build alone.
        var indexBytes: Int
        var indexSeconds: Double?
        var cached: Bool
    }

    /// The fingerprint of the generator and schema of `context.braid`.
    func fingerprint() async throws -> String {
        let probe = context.run.file("scale-fingerprint.sqlite")
        try await seed(probe, documents: 2_000)
        let rows = try await CorpusFingerprint.compute(path: probe.path)
        let schema = try await Self.schema(probe.path)
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in (rows + "\n" + schema).utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        try? FileManager.default.removeItem(at: probe)
        try? FileManager.default.removeItem(at: Self.index(of: probe))
        return String(hash, radix: 16)
    }

    /// The corpus of `documents` recipes for `fingerprint`, seeded now unless a run kept it.
    func corpus(_ documents: Int, fingerprint: String) async throws -> Corpus {
        let folder = Self.folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Corpora of another generator or schema would only fill the disk (a million-recipe
        // corpus takes hundreds of megabytes).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where !name.contains("-\(fingerprint).") {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
        let file = folder.appendingPathComponent("corpus-\(documents)-\(fingerprint).sqlite")
        let timing = folder.appendingPathComponent("corpus-\(documents)-\(fingerprint).seconds")
        let indexTiming = folder.appendingPathComponent("corpus-\(documents)-\(fingerprint).index-seconds")
        if FileManager.default.fileExists(atPath: file.path), FileManager.default.fileExists(atPath: Self.index(of: file).path),
           let text = try? String(contentsOf: timing, encoding: .utf8),
           let seconds = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            let indexSeconds = (try? String(contentsOf: indexTiming, encoding: .utf8)).flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            return Corpus(
                file: file, seconds: seconds, bytes: Self.bytes(file), indexBytes: Self.bytes(directory: Self.index(of: file)),
                indexSeconds: indexSeconds, cached: true)
        }
        // Seeded under another name and renamed when complete: an interrupted seed is never taken for a corpus.
        let partial = folder.appendingPathComponent("corpus-\(documents)-\(fingerprint).partial")
        context.say("seeding \(documents) recipes into \(file.path) (kept for later runs)")
        let started = ContinuousClock.now
        let indexSeconds = try await seed(partial, documents: documents)
        let seconds = Format.seconds(ContinuousClock.now - started)
        for (from, to) in [(partial, file), (Self.index(of: partial), Self.index(of: file))] {
            try? FileManager.default.removeItem(at: to)
            try FileManager.default.moveItem(at: from, to: to)
        }
        try Format.fixed(seconds, 1).write(to: timing, atomically: true, encoding: .utf8)
        try Format.fixed(indexSeconds ?? 0, 1).write(to: indexTiming, atomically: true, encoding: .utf8)
        return Corpus(
            file: file, seconds: seconds, bytes: Self.bytes(file), indexBytes: Self.bytes(directory: Self.index(of: file)),
            indexSeconds: indexSeconds, cached: false)
    }

    /// Seeds `file`; returns how long its search index took, as `braid seed` printed it.
    @discardableResult
    private func seed(_ file: URL, documents: Int) async throws -> Double? {
        let (status, output) = try await ChildProcess.run(
            context.braid, ["seed", "--docs", "\(documents)", "--users", "\(Self.users)", "--db", file.path], timeout: .seconds(3_600))
        guard status == 0 else { throw BenchmarkError("braid seed --docs \(documents) failed: \(output.suffix(2_000))") }
        return Self.indexSeconds(output)
    }

    /// The seconds of `braid seed`'s line "indexed … in <seconds> s".
    static func indexSeconds(_ output: String) -> Double? {
        output.split(separator: "\n").last { $0.hasPrefix("indexed ") }
            .flatMap { $0.split(separator: " ").dropLast().last }.flatMap { Double($0) }
    }

    /// Where `braid seed` puts the search index of the corpus `file`.
    static func index(of file: URL) -> URL { URL(fileURLWithPath: XapianSearchSource.defaultIndexPath(corpusPath: file.path)) }

    private static func bytes(directory: URL) -> Int {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.reduce(0) { $0 + bytes(directory.appendingPathComponent($1)) }
    }

    private static func bytes(_ file: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Every table, index and trigger the corpus was created with, as SQL.
    private static func schema(_ path: String) async throws -> String {
        let connection = try await SQLiteConnection.open(storage: .file(path: path))
        do {
            let rows = try await connection.query("SELECT type, name, sql FROM sqlite_master ORDER BY type, name", [])
            try await connection.close()
            return rows.map { row in row.columns.map { $0.data.description }.joined(separator: "\u{1F}") }.joined(separator: "\n")
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
