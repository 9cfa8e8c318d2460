/// base64url without padding (RFC 4648 §5), strict on decode: only the alphabet, no padding,
/// no length that leaves a lone character, and zero bits where the last character spares some.
/// Byte-level: Foundation's base64 plus three `replacingOccurrences` passes through NSString
/// are a noticeable share of serving one cached component page (which encodes a cursor).
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's value in the alphabet, or 0xFF.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(index) }
        return values
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        let count = (bytes.count * 8 + 5) / 6
        return String(unsafeUninitializedCapacity: count) { output in
            var out = 0, index = 0
            while index + 3 <= bytes.count {
                let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                for shift in [18, 12, 6, 0] { output[out] = alphabet[Int(chunk >> UInt32(shift) & 63)]; out += 1 }
                index += 3
            }
            let rest = bytes.count - index
            if rest > 0 {
                let chunk = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                for shift in [18, 12, 6].prefix(rest + 1) { output[out] = alphabet[Int(chunk >> UInt32(shift) & 63)]; out += 1 }
            }
            return out
        }
    }

    public static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count * 3 / 4)
        var buffer: UInt32 = 0, bits = 0
        for character in characters {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        return buffer == 0 ? bytes : nil
    }
}
