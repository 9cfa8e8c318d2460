import BraidCore
import Testing

@testable import BraidGateway

/// A feed's variant comes from the user's bucket under the salt `feed:<name>`: existing users
/// keep the variant they were shown only while that salt and the hash stay as they are.
@Suite("feed variants of known users")
struct FeedVariantCompatibilityTests {
    /// Golden values of the current hash and salt, computed once with today's code for a
    /// 50/50 split of `home` (buckets in `BucketingTests.knownUsersKeepTheirBuckets`). A change
    /// that moves them moves real users to another variant; never update them to make it pass.
    static let golden: [String: String] = [
        "u00001": "recommended-first", "u00002": "recommended-first", "u00003": "control", "u00004": "recommended-first",
        "u00005": "recommended-first", "u00006": "control", "u00007": "recommended-first", "u00008": "recommended-first",
        "alice": "control", "bob": "recommended-first",
    ]

    @Test("Known users keep their variant of home: the salt stays feed:<name>")
    func knownUsersKeepTheirVariant() {
        let home = FeedDefinition(
            components: [:],
            variants: [
                FeedVariant(name: "control", weight: 50, components: []),
                FeedVariant(name: "recommended-first", weight: 50, components: []),
            ])
        for (user, variant) in Self.golden {
            #expect(FeedLayout.variant(of: home, for: user, feed: "home").name == variant, "\(user)")
        }
    }
}
