import BraidHarness
import Foundation

/// What the gateway group serves and asks for: a feed of 6 components (the defaults have 5),
/// six search queries, and the wrk scripts that cycle over them.
enum GatewayFixture {
    /// The group's configuration file; its `feeds` replaces the default map. Every key of a
    /// component and a variant is required in a file (no per-key defaults there).
    /// The bench sets its own limits (``limitsNote``): wrk drives thousands of requests a
    /// second from one loopback address, far over the default `gateway.rate_limits.per_address`,
    /// and each query's first miss must be computed and stored (admission threshold 1), as the
    /// cold pages need.
    static let configuration = """
        gateway:
          rate_limits: {enabled: false}
          admission: {threshold: 1}
        feeds:
          bench:
            components:
              recommended: {type: recommended_recipes, title: Recommended for you, style: horizontal_list,
                orthogonal_scroll: true, width: 160, height: 220, page_size: 10, scope: user, ttl_seconds: 21600}
              following: {type: followed_authors_new, title: New from people you follow, style: horizontal_list,
                orthogonal_scroll: true, width: 160, height: 220, page_size: 10, scope: user, ttl_seconds: 21600}
              popular-dessert: {type: popular_in_category, title: Popular desserts, style: grid, orthogonal_scroll: false,
                width: 180, height: 240, page_size: 10, scope: category, category: dessert, ttl_seconds: 21600}
              carousel: {type: carousel, title: "Today's picks", style: carousel, orthogonal_scroll: true,
                auto_scroll_interval_ms: 5000, width: 360, height: 200, page_size: 5, scope: segment, ttl_seconds: 21600}
              new-arrivals: {type: new_arrivals, title: New arrivals, style: vertical_list, orthogonal_scroll: false,
                width: 360, height: 120, page_size: 20, scope: segment, ttl_seconds: 21600}
              recipes: {type: profile_recipes, title: Recipes, style: tabs, orthogonal_scroll: false,
                width: 180, height: 240, page_size: 12, scope: user, ttl_seconds: 21600}
            variants:
              - {name: default, weight: 100, prefetch: 2,
                 components: [recommended, following, popular-dessert, carousel, new-arrivals, recipes]}

        """

    /// Writes the configuration file into the run folder and says what it leaves unmeasured;
    /// returns the file and the environment of services on the run's servers, `corpus` and
    /// key prefix `bench-<name>-<tag>`.
    static func setUp(_ context: BenchmarkContext, name: String, corpus: URL) throws -> (config: URL, environment: [String: String]) {
        let config = context.run.file("\(name)-bench.yaml")
        try configuration.write(to: config, atomically: true, encoding: .utf8)
        context.say(limitsNote)
        return (config, [
            "BRAID_REDIS_URL": context.redis.url, "BRAID_KAFKA_BROKERS": context.broker.brokers,
            "BRAID_SEARCH_SQLITE_PATH": corpus.path, "BRAID_REDIS_KEY_PREFIX": "bench-\(name)-\(context.tag)",
            "BRAID_KAFKA_REQUESTS_TOPIC": "braid.requests", "BRAID_KAFKA_CONSUMER_GROUP": "bench-\(name)-\(context.tag)",
            "BRAID_LOGGING_LEVEL": "info",
        ])
    }

    /// Printed by the group, so a reader of its output knows the limits were not measured.
    static let limitsNote =
        "the gateways run with gateway.rate_limits.enabled false (wrk is one loopback caller at thousands of requests a second) and gateway.admission.threshold 1 (every first miss is stored, as the cold pages need)"

    /// The components a worker materializes before the load, as `braid publish` flags.
    static let publications: [[String]] = [
        ["--type", "recommended_recipes", "--user", "u1"],
        ["--type", "followed_authors_new", "--user", "u1"],
        ["--type", "profile_recipes", "--user", "u1"],
        ["--type", "popular_in_category", "--category", "dessert"],
        ["--type", "carousel", "--segment", "all"],
        ["--type", "new_arrivals", "--segment", "all"],
    ]

    static let batchBody =
        #"{"user":"u1","components":["recommended","following","popular-dessert","carousel","new-arrivals","recipes"],"timeout_ms":2000}"#

    static let queries = ["curry", "pasta", "chicken", "cake", "miso soup", "salmon"]

    /// Page 1 of 20 of each query.
    static var searchPaths: [String] { queries.map { "/v1/search?q=\(quotePlus($0))&per_page=20" } }

    /// A wrk script that asks for the search paths in turn.
    static var searchScript: String {
        "local paths = {" + searchPaths.map { "\"\($0)\", " }.joined() + "}\n" + """
            local i = 0
            request = function()
              i = i % #paths + 1
              return wrk.format("GET", paths[i])
            end

            """
    }

    /// A wrk script that POSTs the batchGet body.
    static let batchScript = """
        wrk.method = "POST"
        wrk.body = '\(batchBody)'
        wrk.headers["Content-Type"] = "application/json"

        """

    /// Python's `urllib.parse.quote_plus`: letters, digits and `_.-~` as they are, a space as
    /// `+`, every other byte as `%XX`.
    static func quotePlus(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}
