import BraidCore
import Foundation

/// A signing key replaced by a rotation. What it signed stays valid until `until`, so
/// sessions that began before the rotation can page on; nothing new is signed with it.
public struct RetiredKey: Sendable, RedactedDescription {
    public let key: Secret
    public let until: Date

    public init(key: Secret, until: Date) {
        self.key = key
        self.until = until
    }

    public init(key: some DataProtocol, until: Date) {
        self.init(key: Secret(bytes: key), until: until)
    }

    func isAccepted(at now: Date) -> Bool { now < until }
}
