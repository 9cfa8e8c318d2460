/// A C handle crossing to another thread on purpose; the code doing so states why it is safe.
struct SendablePointer: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

extension String {
    /// Text of a NUL-terminated error buffer that librdkafka filled.
    init(errorBuffer: [CChar]) {
        self.init(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
