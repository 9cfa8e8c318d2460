import BraidCore
import Foundation

/// How the Elasticsearch source authenticates: an API key (what Elasticsearch's
/// `POST /_security/api_key` returns as `encoded`) or a user and password.
public enum ElasticsearchCredentials: Sendable, Equatable, RedactedDescription {
    case apiKey(Secret)
    case basic(username: String, password: Secret)

    /// The `Authorization` header value.
    var authorization: String {
        switch self {
        case .apiKey(let key): "ApiKey \(key.text)"
        case .basic(let username, let password): "Basic \(Data("\(username):\(password.text)".utf8).base64EncodedString())"
        }
    }
}
