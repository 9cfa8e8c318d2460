import BraidRedis
import BraidSources

/// Cheap requests that tell whether a dependency answers at all, for telling an outage
/// from a failing request.
enum DependencyProbes {
    /// An empty ranking query. Any answer counts, also a refusal (4xx): the service is up.
    /// No answer, a timeout or a server error (5xx) means it is down.
    static func searchSource(_ source: any SearchSource) async -> Bool {
        do {
            _ = try await source.search(SearchRequest(query: "braid probe", size: 0))
            return true
        } catch let error as SearchSourceError {
            if error.isRetriable { return false }
            if error.code == .badResponse { return (error.status ?? 500) < 500 }
            return true
        } catch {
            return false
        }
    }

    /// A PING; in a cluster one to every primary, so a dead primary whose slots no node
    /// serves yet (a failover under way) counts as down, not as a request failing on its own.
    static func redis(_ redis: RedisClient) async -> Bool {
        do {
            try await redis.pingEveryPrimary()
            return true
        } catch {
            return false
        }
    }
}
