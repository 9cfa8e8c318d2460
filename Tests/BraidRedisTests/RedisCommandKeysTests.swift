@testable import BraidRedis
import NIOCore
import Testing

@Suite("Which arguments are keys (cluster routing)")
struct RedisCommandKeysTests {
    let slot: (String) -> Int = RedisHashSlot.slot(of:)

    @Test func singleKeyCommandsRouteByTheirKey() throws {
        #expect(try RedisCommandKeys.slot(of: ["GET", "foo"]) == slot("foo"))
        #expect(try RedisCommandKeys.slot(of: ["get", "foo"]) == slot("foo"))
        #expect(try RedisCommandKeys.slot(of: ["HGET", "braid:{c:1}:x", "version"]) == slot("c:1"))
        #expect(try RedisCommandKeys.slot(of: ["SET", "bar", "value", "EX", .integer(10)]) == slot("bar"))
        #expect(try RedisCommandKeys.slot(of: [.bytes(ByteBuffer(string: "GET")), .bytes(ByteBuffer(string: "foo"))]) == slot("foo"))
    }

    @Test func multiKeyCommandsNeedOneSlot() throws {
        #expect(try RedisCommandKeys.slot(of: ["MGET", "{t}a", "{t}b", "{t}c"]) == slot("t"))
        #expect(try RedisCommandKeys.slot(of: ["DEL", "{t}a", "{t}b"]) == slot("t"))
        // MSET: keys at 1, 3, 5…; the values may hash anywhere.
        #expect(try RedisCommandKeys.slot(of: ["MSET", "{t}a", "foo", "{t}b", "bar"]) == slot("t"))
        let error = #expect(throws: RedisRoutingError.self) { try RedisCommandKeys.slot(of: ["MGET", "foo", "bar"]) }
        #expect(error?.kind == .crossSlot)
        #expect(error?.command == "MGET")
        #expect(error?.message.contains("'foo' → slot 12182") == true)
        #expect(error?.message.contains("'bar' → slot 5061") == true)
        #expect(error?.message.contains("hash tag") == true)
    }

    @Test func scriptsRouteByTheirDeclaredKeys() throws {
        #expect(try RedisCommandKeys.slot(of: ["EVALSHA", "abc", .integer(2), "{t}a", "{t}b", "foo", "bar"]) == slot("t"))
        #expect(try RedisCommandKeys.slot(of: ["EVAL", "return 1", "1", "foo", "bar"]) == slot("foo"))
        #expect(try RedisCommandKeys.slot(of: ["EVALSHA", "abc", .integer(0), "foo"]) == nil)
        #expect(throws: RedisRoutingError.self) { try RedisCommandKeys.slot(of: ["EVALSHA", "abc", .integer(2), "foo", "bar"]) }
    }

    @Test func keylessCommandsGoAnywhere() throws {
        for command: [RESPArgument] in [["PING"], ["INFO", "server"], ["SCRIPT", "LOAD", "return 1"], ["SCAN", "0"], ["CLUSTER", "SHARDS"]] {
            #expect(try RedisCommandKeys.slot(of: command) == nil)
        }
    }

    @Test func unknownCommandsAreRefusedNotGuessed() {
        let error = #expect(throws: RedisRoutingError.self) { try RedisCommandKeys.slot(of: ["XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"]) }
        #expect(error?.kind == .unknownKeys)
        #expect(error?.message.contains("send(_:keys:)") == true)
        #expect(RedisCommandKeys.knows("get") && !RedisCommandKeys.knows("XREADGROUP"))
    }

    @Test func explicitKeys() throws {
        #expect(try RedisCommandKeys.slot(ofKeys: [], command: "X") == nil)
        #expect(try RedisCommandKeys.slot(ofKeys: ["{t}a", "{t}b"], command: "X") == slot("t"))
        let error = #expect(throws: RedisRoutingError.self) { try RedisCommandKeys.slot(ofKeys: ["foo", "bar"], command: "EVALSHA") }
        #expect(error?.kind == .crossSlot && error?.command == "EVALSHA")
    }
}
