/// Packs a list of document ids into few bytes, for cursors and walk records: each id is
/// stored as the length of the prefix it shares with the id before it plus the rest
/// ("front coding"). Ids that look alike (`r001234`, `r001240`, …) then cost about four bytes
/// each; sorted first, most share more than half of their bytes. Pure.
///
/// Layout: count (varint), then per id one byte `shared << 4 | rest` when the shared prefix is
/// under 15 bytes and the rest under 16, else `0xF0` followed by both as varints; then the
/// rest's bytes.
public enum IDListCoding {
    /// Most ids a list may hold: more is refused on decoding, whoever wrote it.
    public static let maxCount = 100_000
    /// Longest id, in UTF-8 bytes.
    public static let maxIDBytes = 1_024

    public static func encode(_ ids: [String], into bytes: inout [UInt8]) {
        Varint.append(UInt64(ids.count), to: &bytes)
        var previous: [UInt8] = []
        for id in ids {
            let current = Array(id.utf8.prefix(maxIDBytes))
            var shared = 0
            let limit = min(previous.count, current.count)
            while shared < limit, previous[shared] == current[shared] { shared += 1 }
            let rest = current.count - shared
            if shared < 15, rest < 16 {
                bytes.append(UInt8(shared << 4 | rest))
            } else {
                bytes.append(0xF0)
                Varint.append(UInt64(shared), to: &bytes)
                Varint.append(UInt64(rest), to: &bytes)
            }
            bytes.append(contentsOf: current[shared...])
            previous = current
        }
    }

    public static func encode(_ ids: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        encode(ids, into: &bytes)
        return bytes
    }

    /// The ids at `index`, which moves past them; nil when the bytes are not such a list.
    public static func decode(_ bytes: [UInt8], at index: inout Int) -> [String]? {
        guard let count = Varint.read(bytes, at: &index), count <= UInt64(maxCount) else { return nil }
        var ids: [String] = []
        ids.reserveCapacity(Int(count))
        var previous: [UInt8] = []
        for _ in 0..<Int(count) {
            guard index < bytes.count else { return nil }
            let head = bytes[index]
            index += 1
            var shared = Int(head >> 4)
            var rest = Int(head & 0x0F)
            if head == 0xF0 {
                guard let long = Varint.read(bytes, at: &index), let length = Varint.read(bytes, at: &index),
                      long <= UInt64(maxIDBytes), length <= UInt64(maxIDBytes)
                else { return nil }
                shared = Int(long)
                rest = Int(length)
            } else if shared == 15 {
                return nil
            }
            guard shared <= previous.count, shared + rest <= maxIDBytes, bytes.count - index >= rest else { return nil }
            let current = Array(previous[0..<shared]) + bytes[index..<(index + rest)]
            index += rest
            ids.append(String(decoding: current, as: UTF8.self))
            previous = current
        }
        return ids
    }

    /// The whole of `bytes` as one list; nil when anything is left over or missing.
    public static func decode(_ bytes: [UInt8]) -> [String]? {
        var index = 0
        guard let ids = decode(bytes, at: &index), index == bytes.count else { return nil }
        return ids
    }
}

/// Unsigned LEB128 integers: seven bits a byte, low bits first.
public enum Varint {
    public static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// The integer at `index`, which moves past it; nil when cut short or longer than 64 bits.
    public static func read(_ bytes: [UInt8], at index: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard shift < 64, shift < 63 || byte <= 1 else { return nil }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }
}
