import BraidContracts
import BraidCore
import Foundation
import Testing

/// Cursors issued by gateways of earlier versions keep working until they expire, so a rolling
/// deploy breaks no walk in flight; and what this version writes is what they wrote, so they
/// read its cursors too. The texts below were made from the documented layouts (CursorCodec)
/// by an encoder of their own, outside this code, under the key "cursor-compatibility-key".
@Suite("Cursors of earlier gateways")
struct CursorCompatibilityTests {
    let codec = CursorCodec(key: Array("cursor-compatibility-key".utf8))
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let expiry: Int64 = 4_102_444_800
    static let search = (configuration: UInt64(0x1111_1111_1111_1111), seed: UInt64(0x2222_2222_2222_2222), query: UInt64(0x3333_3333_3333_3333))
    static let multileave = (configuration: UInt64(0x4444_4444_4444_4444), seed: UInt64(0x5555_5555_5555_5555), query: UInt64(0x6666_6666_6666_6666))

    static let cases: [(name: String, text: String, cursor: SearchCursor)] = [
        ("format 1, pinned", "AQEAAAGiHNQ5AAAAAAAAAAAUABQRERERERERESIiIiIiIiIiAAAAAPSGVwAzMzMzMzMzM2Xac_B-1wJQfJBVcVLDQso",
         SearchCursor(snapshots: .single(1_795_780_000_000), offset: 20, pageSize: 20, configurationHash: search.configuration, seed: search.seed,
                      queryHash: search.query, expiresAt: expiry)),
        ("format 1, live-only", "AQAAAAAAAAAAAAAAAAAAAAAoABQRERERERERESIiIiIiIiIiAAAAAPSGVwAzMzMzMzMzM3Absr6Ra1xFJtZe30Upqbw",
         SearchCursor(snapshots: .single(nil), offset: 40, pageSize: 20, configurationHash: search.configuration, seed: search.seed,
                      queryHash: search.query, expiresAt: expiry)),
        ("format 2, multileave", "AgAAAAAAAAAAAAAAAAAAAAAKAApERERERERERFVVVVVVVVVVAAAAAPSGVwBmZmZmZmZmZgIBAAABohzUOQEAAAAAAAAAAAC-WJRYxrk1JtIRUjpkRhqg",
         SearchCursor(snapshots: .multileave([1_795_780_000_001, nil]), offset: 10, pageSize: 10, configurationHash: multileave.configuration,
                      seed: multileave.seed, queryHash: multileave.query, expiresAt: expiry)),
        ("format 3, a walk whose A ran out", "AwEAAAGiHNQ5AgAAAAAAAAAoABQRERERERERESIiIiIiIiIiAAAAAPSGVwAzMzMzMzMzMwABAQAAAAAAAKvNAwB7yuKF1LmO8F-2SAoFmXY4sw",
         SearchCursor(snapshots: .single(1_795_780_000_002), offset: 40, pageSize: 20, configurationHash: search.configuration, seed: search.seed,
                      queryHash: search.query, expiresAt: expiry,
                      walk: WalkState(mode: .recorded, id: 0xABCD, page: 3, aBase: 0, exhaustedTotal: 123))),
        ("format 3, a multileave walk by offset", "AwAAAAAAAAAAAAAAAAAAAAAUAApERERERERERFVVVVVVVVVVAAAAAPSGVwBmZmZmZmZmZgIBAAABohzUOQMBAAABohzUOQQAAAAAAAAAABI0AgUHcSduM_9pK2y4msomqpoy",
         SearchCursor(snapshots: .multileave([1_795_780_000_003, 1_795_780_000_004]), offset: 20, pageSize: 10,
                      configurationHash: multileave.configuration, seed: multileave.seed, queryHash: multileave.query, expiresAt: expiry,
                      walk: WalkState(mode: .offset, id: 0x1234, page: 2, aBase: 5))),
    ]

    @Test func searchCursorsOfEveryEarlierFormatDecodeAndEncodeTheSame() throws {
        for (name, text, expected) in Self.cases {
            #expect(try codec.decodeSearch(text, now: now) == expected, "\(name)")
            #expect(codec.encode(expected) == text, "\(name): this version writes the same bytes")
        }
    }

    @Test func componentCursorsDecodeAndAreNoSearchCursorsForComponents() throws {
        let text = "AQAAAAAAAAAAAAAAAAAAAAAIAAgAAAAAAAAAAAAAAAAAAAAAAAAAAPSGVwB3d3d3d3d3dxmgXttrGHFEm5-sVpoSMlw"
        let expected = ComponentCursor(offset: 8, pageSize: 8, binding: 0x7777_7777_7777_7777, expiresAt: Self.expiry)
        #expect(try codec.decodeComponent(text, now: now) == expected)
        #expect(codec.encode(expected) == text)
        for (name, search, _) in Self.cases {
            #expect(throws: CursorError.otherList, "\(name)") { try codec.decodeComponent(search, now: now) }
        }
    }
}
