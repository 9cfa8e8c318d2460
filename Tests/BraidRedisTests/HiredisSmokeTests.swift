import BraidCore
import BraidTestSupport
import CHiredis
import Foundation
import Testing

/// The lowest layer works end to end: hiredis is linked and a real redis-server answers SET/GET.
@Suite("hiredis smoke", .integration)
struct HiredisSmokeTests {
    struct RedisFailure: Error, CustomStringConvertible { let description: String }

    @Test func setsAndGetsAKey() async throws {
        let (host, port) = try TestEnvironment.redisEndpoint()
        let key = TestEnvironment.uniqueName("smoke")
        let value = "ＣＵＲＲＹ ライス \(UUID().uuidString)"
        let read = try await runOffPool { () throws -> String? in
            guard let context = redisConnectWithTimeout(host, Int32(port), timeval(tv_sec: 5, tv_usec: 0)) else {
                throw RedisFailure(description: "redisConnect returned nil")
            }
            defer { redisFree(context) }
            guard context.pointee.err == 0 else {
                throw RedisFailure(description: "connect to \(host):\(port): \(Self.errorText(context))")
            }
            _ = try Self.command(context, ["SET", key, value, "EX", "60"])
            return try Self.command(context, ["GET", key])
        }
        #expect(read == value)
    }

    static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Sends one command with `redisCommandArgv` (the variadic `redisCommand` is not callable
    /// from Swift) and returns a string or status reply.
    static func command(_ context: UnsafeMutablePointer<redisContext>, _ arguments: [String]) throws -> String? {
        let buffers = arguments.map { Array($0.utf8CString) }
        var lengths = arguments.map { $0.utf8.count }
        let reply: UnsafeMutableRawPointer? = buffers.withUnsafePointersToElements { pointers in
            var argv = pointers
            return redisCommandArgv(context, Int32(arguments.count), &argv, &lengths)
        }
        guard let raw = reply else { throw RedisFailure(description: "\(arguments[0]): \(errorText(context))") }
        let object = raw.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(raw) }
        switch object.pointee.type {
        case REDIS_REPLY_STRING, REDIS_REPLY_STATUS:
            return String(cString: object.pointee.str)
        case REDIS_REPLY_NIL:
            return nil
        case REDIS_REPLY_ERROR:
            throw RedisFailure(description: "\(arguments[0]): \(String(cString: object.pointee.str))")
        default:
            throw RedisFailure(description: "\(arguments[0]): unexpected reply type \(object.pointee.type)")
        }
    }
}

extension Array where Element == [CChar] {
    /// Calls `body` with C pointers to every element's storage, valid for the call only.
    fileprivate func withUnsafePointersToElements<R>(_ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        func recurse(_ index: Int, _ collected: [UnsafePointer<CChar>?]) -> R {
            guard index < count else { return body(collected) }
            return self[index].withUnsafeBufferPointer { recurse(index + 1, collected + [$0.baseAddress]) }
        }
        return recurse(0, [])
    }
}
