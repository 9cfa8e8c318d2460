import BraidRedis
@testable import BraidGateway
import Testing

/// The versions kept by key tracking, as pure logic: what a read may keep given what the
/// tracker said while it was on its way.
@Suite("Tracked versions")
struct TrackedVersionsTests {
    static func tracking() -> TrackedVersions {
        let versions = TrackedVersions()
        versions.invalidateAll(tracking: true, reason: .tracking)
        return versions
    }

    @Test func aReadIsKeptUntilItsKeyIsInvalidated() {
        let versions = Self.tracking()
        versions.remember(3, for: "k", ticket: versions.ticket(for: "k"))
        #expect(versions.version(for: "k") == 3)
        versions.invalidate(keys: ["k"])
        #expect(versions.version(for: "k") == nil)
    }

    @Test func anInvalidationWhileTheReadWasOnItsWayKeepsTheOldAnswerOut() {
        // Redis answered with the old version, and the message saying the key changed arrived
        // first: keeping the answer would serve the old version until the next change.
        let versions = Self.tracking()
        let ticket = versions.ticket(for: "k")
        versions.invalidate(keys: ["k"])
        versions.remember(3, for: "k", ticket: ticket)
        #expect(versions.version(for: "k") == nil)
        versions.remember(4, for: "k", ticket: versions.ticket(for: "k"))
        #expect(versions.version(for: "k") == 4)
    }

    @Test func anInvalidationOfAKeyInAnotherStripeDoesNotKeepTheAnswerOut() throws {
        let versions = Self.tracking()
        let other = try #require((0..<100).map { "o\($0)" }.first { TrackedVersions.stripe(of: $0) != TrackedVersions.stripe(of: "k") })
        let ticket = versions.ticket(for: "k")
        versions.invalidate(keys: [other])
        versions.remember(3, for: "k", ticket: ticket)
        #expect(versions.version(for: "k") == 3)
    }

    @Test func aFlushDropsEverythingAndEveryReadStartedBeforeIt() {
        let versions = Self.tracking()
        versions.remember(1, for: "a", ticket: versions.ticket(for: "a"))
        let ticket = versions.ticket(for: "b")
        versions.invalidateAll(tracking: true, reason: .flushed)
        versions.remember(2, for: "b", ticket: ticket)
        #expect(versions.version(for: "a") == nil)
        #expect(versions.version(for: "b") == nil)
    }

    @Test func nothingIsKeptOrServedWhileNotTracking() {
        let versions = TrackedVersions()
        versions.remember(1, for: "a", ticket: versions.ticket(for: "a"))
        #expect(versions.version(for: "a") == nil)
        let tracked = Self.tracking()
        tracked.remember(1, for: "a", ticket: tracked.ticket(for: "a"))
        tracked.invalidateAll(tracking: false, reason: .connectionLost)
        tracked.remember(2, for: "b", ticket: tracked.ticket(for: "b"))
        #expect(tracked.version(for: "a") == nil)
        #expect(tracked.version(for: "b") == nil)
        #expect(!tracked.isTracking)
    }
}
