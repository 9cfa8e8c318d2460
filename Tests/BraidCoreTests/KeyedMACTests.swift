import BraidCore
import Testing

/// A key set up once and copied per signature: each code is HMAC-SHA256's for its message alone
/// (checked against ``Secret/derived(label:)``, which keys HMAC afresh), whatever was signed
/// before and however many tasks sign at once.
@Suite("Keyed MAC")
struct KeyedMACTests {
    static let key = Secret("cursor-key-for-tests")
    static let messages = (0..<64).map { "message \($0) " + String(repeating: "x", count: $0 * 7) }

    @Test func everyCodeIsHMACSHA256OfItsMessageAloneOneAfterAnother() {
        let signer = KeyedMAC(Self.key)
        for message in Self.messages + Self.messages.reversed() {
            #expect(signer.code(for: Array(message.utf8), length: 32) == Self.key.derived(label: message).bytes)
        }
        #expect(signer.code(for: Array("a".utf8), length: 16) == Array(Self.key.derived(label: "a").bytes.prefix(16)))
    }

    @Test func tasksSigningAtOnceDoNotShareState() async {
        let signer = KeyedMAC(Self.key)
        let wrong = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<200 {
                        let message = Self.messages[(worker * 7 + round) % Self.messages.count]
                        if signer.code(for: Array(message.utf8), length: 32) != Self.key.derived(label: message).bytes { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }
}
