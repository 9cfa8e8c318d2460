import Foundation

/// How the Elasticsearch source authenticates: an API key (what Elasticsearch's
/// `POST /_security/api_key` returns as `encoded`) or a user and password.
public enum ElasticsearchCredentials: Sendable, Equatable {
    case apiKey(String)
    case basic(username: String, password: String)

    /// The `Authorization` header value.
    var authorization: String {
        switch self {
        case .apiKey(let key): "ApiKey \(key)"
        case .basic(let username, let password): "Basic \(Data("\(username):\(password)".utf8).base64EncodedString())"
        }
    }
}
