import BraidContracts
import BraidCore
import BraidTestSupport
import Foundation
import Testing

/// Types that hold key material describe themselves redacted, however they are printed:
/// interpolation, `String(reflecting:)`, `dump` (which walks mirrors), and a value nested in
/// another (as swift-service-lifecycle prints each service it starts at debug level).
@Suite("Key material never prints itself")
struct RedactionTests {
    static let impressionKey = "impression-key-of-the-redaction-test"
    static let cursorKey = "cursor-key-of-the-redaction-test"

    /// Everything `value` prints as.
    static func printed(_ value: Any) -> String {
        var dumped = ""
        dump(value, to: &dumped)
        return ["\(value)", String(reflecting: value), dumped, "\(Mirror(reflecting: value).children.map { "\($0.label ?? ""): \($0.value)" })"]
            .joined(separator: "\n")
    }

    static var keys: [(name: String, bytes: [UInt8])] {
        SecretForms.impressionKeys(impressionKey)
            + [("impression key", Array(impressionKey.utf8)), ("cursor key", Array(cursorKey.utf8))]
    }

    /// A service-like value holding the codecs, as the gateway's services do.
    struct Holder {
        var name = "holder"
        var cursors: CursorCodec
        var impressions: ImpressionCodec
        var retired: RetiredKey
        var secret: Secret
    }

    @Test func codecsRetiredKeysAndSecretsPrintNoFormOfAnyKey() {
        let holder = Holder(
            cursors: CursorCodec(key: Secret(Self.cursorKey)),
            impressions: ImpressionCodec(key: Secret(Self.impressionKey), retired: RetiredKey(key: Secret(Self.cursorKey), until: .distantFuture)),
            retired: RetiredKey(key: Array(Self.impressionKey.utf8), until: .distantFuture),
            secret: Secret(Self.impressionKey))
        let text = Self.printed(holder)
        #expect(text.contains("holder") && text.contains("<redacted>"), "\(text)")
        #expect(SecretForms.firstLeak(in: text, of: Self.keys) == nil, "\(text)")
    }

    @Test func aSecretComparesAndDerivesWithoutShowingItsBytes() {
        let secret = Secret("s3cret-value-long-enough")
        #expect("\(secret)" == "<redacted>" && String(reflecting: secret) == "<redacted>")
        #expect(Mirror(reflecting: secret).children.isEmpty)
        #expect(secret == Secret("s3cret-value-long-enough") && secret != Secret("s3cret-value-long-enougH") && secret != Secret.none)
        #expect(Secret.none.matches([]) && !Secret.none.matches([1]) && !secret.matches(Array("s3cret".utf8)))
        #expect(secret.derived(label: "a").bytes == SecretForms.derived("s3cret-value-long-enough", label: "a"))
        #expect("\(secret.derived(label: "a"))" == "<redacted>")
    }

    /// The check itself finds a key printed in each form it knows, so a clean result means something.
    @Test func theLeakCheckFindsEachFormOfAKey() {
        let key = SecretForms.derived(Self.impressionKey, label: "braid-impression")
        for text in ["\(key)", Data(key).base64EncodedString(), key.map { String(format: "%02X", $0) }.joined()] {
            #expect(SecretForms.firstLeak(in: "prefix \(text) suffix", of: Self.keys) != nil, "\(text)")
        }
        var dumped = ""
        dump(key, to: &dumped)
        #expect(SecretForms.firstLeak(in: dumped, of: Self.keys) != nil, "\(dumped)")
    }
}
