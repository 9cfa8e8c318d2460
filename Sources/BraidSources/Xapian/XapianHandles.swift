import CXapianShim
import Foundation

/// A failed libxapian call: its code (``CXapianShim``'s `BRAID_XAPIAN_*`) and message.
struct XapianError: Error, CustomStringConvertible {
    enum Code {
        case failed, locked, modified, notFound
    }

    var code: Code
    var message: String

    var description: String { message }

    /// Throws for a code other than OK, taking the shim's message.
    static func check(_ status: Int32, _ error: UnsafeMutablePointer<CChar>?) throws {
        guard status != Int32(BRAID_XAPIAN_OK) else { return }
        let message = error.map { String(cString: $0) } ?? "libxapian failed"
        braid_xapian_free(error)
        switch status {
        case Int32(BRAID_XAPIAN_LOCKED): throw XapianError(code: .locked, message: message)
        case Int32(BRAID_XAPIAN_MODIFIED): throw XapianError(code: .modified, message: message)
        case Int32(BRAID_XAPIAN_NOT_FOUND): throw XapianError(code: .notFound, message: message)
        default: throw XapianError(code: .failed, message: message)
        }
    }
}

/// Calls `body` with C strings of `strings` that live for the call.
func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) throws -> R) rethrows -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return try body(copies.map { UnsafePointer($0) })
}

/// One read handle: a snapshot of the index at a revision until ``reopen()``. Not thread-safe:
/// one caller at a time (``XapianSearchSource`` lends each to one query).
final class XapianReader: @unchecked Sendable {
    private let handle: OpaquePointer

    init(path: String) throws {
        var handle: OpaquePointer?
        var error: UnsafeMutablePointer<CChar>?
        try XapianError.check(braid_xapian_reader_open(path, &handle, &error), error)
        self.handle = handle!
    }

    deinit { braid_xapian_reader_close(handle) }

    func reopen() throws {
        var error: UnsafeMutablePointer<CChar>?
        try XapianError.check(braid_xapian_reader_reopen(handle, &error), error)
    }

    func metadata(_ key: String) throws -> String {
        var value: UnsafeMutablePointer<CChar>?
        var error: UnsafeMutablePointer<CChar>?
        try XapianError.check(braid_xapian_reader_metadata(handle, key, &value, &error), error)
        defer { braid_xapian_free(value) }
        return value.map { String(cString: $0) } ?? ""
    }

    struct Hit {
        var docid: UInt32
        var score: Double
        var id: String
    }

    struct Hits {
        var hits: [Hit]
        var lowerBound: Int
        var upperBound: Int
    }

    /// The query of ``XapianQuery``: one match, ranked, the page `from..<from+size`.
    func search(_ query: XapianQuery) throws -> Hits {
        let clauses = query.clauses
        let kinds: [Int32] = clauses.map {
            switch $0 {
            case .word: Int32(BRAID_XAPIAN_TERM)
            case .prefix: Int32(BRAID_XAPIAN_PREFIX)
            case .phrase: Int32(BRAID_XAPIAN_PHRASE)
            }
        }
        let terms: [[String]] = clauses.map {
            switch $0 {
            case .word(let term), .prefix(let term): [term]
            case .phrase(let terms): terms
            }
        }
        let counts = terms.map { Int32($0.count) }
        var result = braid_xapian_hits()
        var error: UnsafeMutablePointer<CChar>?
        let status = withCStrings(terms.flatMap { $0 }) { termPointers in
            withCStrings(query.excluded.map(XapianTerms.idTerm)) { excluded in
                withCStrings((query.only ?? []).map(XapianTerms.idTerm)) { only in
                    var q = braid_xapian_query()
                    q.clause_count = Int32(clauses.count)
                    q.profile = query.profile
                    q.popularity_weight = query.popularityWeight
                    q.k1 = 1.2
                    q.b = 0.75
                    q.excluded_count = Int32(excluded.count)
                    q.has_only = query.only == nil ? 0 : 1
                    q.only_count = Int32(only.count)
                    q.from = UInt32(query.from)
                    q.size = UInt32(query.size)
                    q.check_at_least = UInt32(min(query.checkAtLeast, Int(UInt32.max)))
                    return kinds.withUnsafeBufferPointer { kinds in
                        counts.withUnsafeBufferPointer { counts in
                            termPointers.withUnsafeBufferPointer { termPointers in
                                excluded.withUnsafeBufferPointer { excluded in
                                    only.withUnsafeBufferPointer { only in
                                        q.kinds = kinds.baseAddress
                                        q.term_counts = counts.baseAddress
                                        q.terms = termPointers.baseAddress
                                        q.excluded = excluded.baseAddress
                                        q.only = only.baseAddress
                                        return braid_xapian_reader_search(handle, &q, &result, &error)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        try XapianError.check(status, error)
        defer { braid_xapian_hits_free(&result) }
        let hits = (0..<Int(result.count)).map { index in
            Hit(docid: result.docids[index], score: result.scores[index], id: String(cString: result.data[index]!))
        }
        return Hits(hits: hits, lowerBound: Int(result.matches_lower_bound), upperBound: Int(result.matches_upper_bound))
    }
}

/// What one Xapian query asks: ``XapianTerms`` clauses plus the request's profile and page.
struct XapianQuery {
    var clauses: [XapianTerms.Clause]
    var profile: Int32
    var popularityWeight: Double
    var excluded: [String]
    var only: [String]?
    var from: Int
    var size: Int
    var checkAtLeast: Int
}

/// The write handle, holding the index's lock until closed. One caller at a time.
final class XapianWriter: @unchecked Sendable {
    private let handle: OpaquePointer

    /// Throws ``XapianError/Code/locked`` when another handle (of any process) writes.
    init(path: String, overwrite: Bool) throws {
        var handle: OpaquePointer?
        var error: UnsafeMutablePointer<CChar>?
        try XapianError.check(braid_xapian_writer_open(path, overwrite ? 1 : 0, &handle, &error), error)
        self.handle = handle!
    }

    deinit { braid_xapian_writer_close(handle) }

    func replace(docid: UInt32, id: String, postings: [XapianTerms.Posting], popularityLog: Double, publishedAt: Double) throws {
        var error: UnsafeMutablePointer<CChar>?
        let wdfs = postings.map(\.wdf)
        let positions = postings.map(\.position)
        let status = withCStrings(postings.map(\.term)) { terms in
            braid_xapian_writer_replace(
                handle, docid, XapianTerms.idTerm(id), id, Int32(postings.count), terms, wdfs, positions, popularityLog, publishedAt, &error)
        }
        try XapianError.check(status, error)
    }

    func delete(docid: UInt32) throws {
        var error: UnsafeMutablePointer<CChar>?
        try XapianError.check(braid_xapian_writer_delete(handle, docid, &error), error)
    }

    func metadata(_ key: String) throws -> String {
        var value: UnsafeMutablePointer<CChar>?
        var error: UnsafeMutablePointer<CChar>?
        try XapianError.check(braid_xapian_writer_metadata(handle, key, &value, &error), error)
        defer { braid_xapian_free(value) }
        return value.map { String(cString: $0) } ?? ""
    }

    func setMetadata(_ key: String, _ value: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        try XapianError.check(braid_xapian_writer_set_metadata(handle, key, value, &error), error)
    }

    func commit() throws {
        var error: UnsafeMutablePointer<CChar>?
        try XapianError.check(braid_xapian_writer_commit(handle, &error), error)
    }
}
