import AsyncHTTPClient
import BraidConfig
import BraidSources
import Logging
import NIOCore
import BraidCore

/// Builds the live source that `search.source` names.
public enum SearchSourceFactory {
    public static func make(
        _ section: BraidConfiguration.SearchSection, client: HTTPClient = .shared,
        logger: Logger = Logger(label: "braid.search")
    ) -> any SearchSource {
        let timeout = TimeAmount.milliseconds(max(section.timeout.wholeMilliseconds, 1))
        switch section.live {
        case .sqlite(let sqlite):
            let options = SQLiteSearchSource.Options(connections: sqlite.connections, pageCacheMiB: sqlite.pageCacheMib)
            return SQLiteSearchSource(path: sqlite.path, options: options, logger: logger)
        case .xapian(let xapian, let corpus):
            let options = XapianSearchSource.Options(countAtLeast: xapian.countAtLeast, readers: xapian.readers)
            return XapianSearchSource(corpusPath: corpus.path, indexPath: xapian.indexPath, options: options, logger: logger)
        case .elasticsearch(let elasticsearch):
            return ElasticsearchSource(
                baseURL: elasticsearch.url, index: elasticsearch.index, credentials: elasticsearch.credentials, timeout: timeout,
                client: client)
        case .http(let http):
            return HTTPRankingSource(url: http.url, timeout: timeout, client: client)
        }
    }
}

extension BraidConfiguration {
    /// Where feed components' contents come from, for the gateway (live reads) and the worker
    /// (materializing) alike: `components.source`; banners come from `campaigns` whatever it is.
    /// The one place that decides it.
    public func componentProvider() -> any ComponentProvider {
        switch components.source {
        case .sqlite: SQLiteComponentProvider(path: components.sqlite.path ?? search.sqlite.path, pageCacheMiB: search.sqlite.pageCacheMib)
        }
    }
}

extension BraidConfiguration.ElasticsearchSection {
    /// What `api_key`, or `username` and `password`, set.
    public var credentials: ElasticsearchCredentials? {
        if !apiKey.isEmpty { return .apiKey(apiKey) }
        if let username { return .basic(username: username, password: password) }
        return nil
    }
}
