import Foundation

/// A signing key replaced by a rotation. What it signed stays valid until `until`, so
/// sessions that began before the rotation can page on; nothing new is signed with it.
public struct RetiredKey: Sendable {
    public let key: [UInt8]
    public let until: Date

    public init(key: some DataProtocol, until: Date) {
        self.key = Array(key)
        self.until = until
    }

    func isAccepted(at now: Date) -> Bool { now < until }
}
