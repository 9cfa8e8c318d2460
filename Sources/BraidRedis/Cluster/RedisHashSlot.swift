import NIOCore

/// Redis Cluster's key → slot function: CRC16 (XMODEM) of the key, or of its hash tag, mod 16384.
///
/// A hash tag is the part between the first `{` and the next `}` when that part is not
/// empty: `braid:{rank:featured:1f}:cur` and `braid:{rank:featured:1f}:v:7` share a slot, which
/// is what lets one Lua script touch both in a cluster.
public enum RedisHashSlot {
    public static let count = 16_384

    /// The slot of a key given as text (its UTF-8 bytes).
    public static func slot(of key: String) -> Int {
        var key = key
        return key.withUTF8 { slot(ofBytes: UnsafeRawBufferPointer($0)) }
    }

    /// The slot of a key given as bytes.
    public static func slot(of key: ByteBuffer) -> Int {
        key.withUnsafeReadableBytes { slot(ofBytes: $0) }
    }

    static func slot(ofBytes key: UnsafeRawBufferPointer) -> Int {
        var hashed = key
        if let open = key.firstIndex(of: UInt8(ascii: "{")),
            let close = key[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1
        {
            hashed = UnsafeRawBufferPointer(rebasing: key[(open + 1)..<close])
        }
        return Int(crc16(hashed) & 0x3FFF)
    }

    /// CRC16-CCITT (XMODEM): polynomial 0x1021, initial value 0, as in Redis's crc16.c.
    static func crc16(_ bytes: UnsafeRawBufferPointer) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
        }
        return crc
    }

    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }
}
