import Foundation

/// Parses a URL query string (`a=1&b=x+y`): `+` is a space, `%XX` is a byte, the first
/// value of a repeated name wins. Malformed percent-encoding is a 400, not a guess.
///
/// Not Hummingbird's `uri.queryParameters`, which leaves `+` as a plus (HTML forms and curl
/// users write `q=curry+rice`), leaves names encoded, and keeps a malformed `%ZZ` as it is
/// instead of refusing it (`GatewayLogicTests.queryString` pins all three).
enum QueryString {
    static func parse(_ query: String?) throws(GatewayError) -> [String: String] {
        guard let query, !query.isEmpty else { return [:] }
        var result: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decode(parts[0])
            let value = parts.count > 1 ? try decode(parts[1]) : ""
            if result[name] == nil { result[name] = value }
        }
        return result
    }

    static func decode(_ text: Substring) throws(GatewayError) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        guard let decoded = spaced.removingPercentEncoding else {
            throw .badRequest("the query string is not valid percent-encoded UTF-8", code: "invalid_parameter")
        }
        return decoded
    }
}
