import BraidContracts
import BraidCore
import BraidPrecompute
import BraidRedis
import BraidSources

/// Why processing a request failed, sorted by what the worker does about it.
public enum ProcessingFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Trying again cannot help (invalid message, unknown ranking, a query the source
    /// refuses, a foreign value in Redis): straight to the dead-letter topic.
    case permanent(String)
    /// An outage or overload (Redis or the source unreachable, a timeout): retried with
    /// backoff; when `dependency` turns out to be down the worker pauses instead, otherwise
    /// the request is dead-lettered once the attempts are used up.
    case transient(String, dependency: Dependency)

    /// What a transient failure came from: the worker probes it to tell an outage (pause)
    /// from a request that fails on its own (dead-letter).
    public enum Dependency: String, Sendable, Hashable, CaseIterable {
        /// The live search source that rankings are computed with.
        case searchSource = "search_source"
        case redis
        /// Anything else (the component corpus, an unexpected error): not probed.
        case other
    }

    public var reason: String {
        switch self {
        case .permanent(let reason), .transient(let reason, _): reason
        }
    }

    public var description: String { reason }

    /// Sorts an error thrown while materializing. Unknown errors count as transient: a
    /// retry is cheap, a wrongly dead-lettered request needs a person to replay it.
    public static func classify(_ error: any Error) -> ProcessingFailure {
        switch error {
        case let failure as ProcessingFailure:
            return failure
        case let error as RequestValidationError:
            return .permanent("invalid request: \(error.reason)")
        case let error as MaterializeError:
            return .permanent(error.description)
        case let error as SearchSourceError where error.code == .badQuery:
            return .permanent("the search source refused the query: \(error.message)")
        case let error as SearchSourceError:
            return .transient("\(error)", dependency: .searchSource)
        case let error as StoredValueError:
            return .permanent("unexpected value in Redis: \(error)")
        case let error as RedisServerError where error.code == "WRONGTYPE":
            return .permanent("unexpected value in Redis: \(error)")
        case let error as RedisConnectionError:
            return .transient("\(error)", dependency: .redis)
        default:
            return .transient("\(error)", dependency: .other)
        }
    }
}
