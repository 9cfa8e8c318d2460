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
        let bytes = text.utf8
        // Most names and values need no decoding.
        if !bytes.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) { return String(text) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "+"):
                decoded.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                let high = bytes.index(after: index)
                guard high < bytes.endIndex, bytes.index(after: high) < bytes.endIndex,
                      let upper = hexValue(bytes[high]), let lower = hexValue(bytes[bytes.index(after: high)])
                else { throw malformed }
                decoded.append(upper << 4 | lower)
                index = bytes.index(after: high)
            default:
                decoded.append(byte)
            }
            index = bytes.index(after: index)
        }
        guard let text = String(validating: decoded, as: UTF8.self) else { throw malformed }
        return text
    }

    static let malformed = GatewayError.badRequest("the query string is not valid percent-encoded UTF-8", code: "invalid_parameter")

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
