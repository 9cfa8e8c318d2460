import Foundation
import Testing

@testable import BraidBenchmarks

@Suite("wrk output")
struct WrkResultTests {
    static let output = """
        Running 10s test @ http://127.0.0.1:8080/
          2 threads and 16 connections
          Thread Stats   Avg      Stdev     Max   +/- Stdev
            Latency    30.12ms   10.01ms 120.00ms   80.00%
            Req/Sec   265.00     40.00   350.00     70.00%
          Latency Distribution
             50%  812.00us
             75%   35.00ms
             90%   42.00ms
             99%    1.25s
          5300 requests in 10.01s, 60.00MB read
        Requests/sec:    529.47
        Transfer/sec:      6.00MB
        """

    @Test func readsRateLatenciesInMillisecondsAndCount() {
        #expect(WrkResult.parse(Self.output) == WrkResult(rps: "529.5", p99: "1250.000", requests: 5300, p50: "0.812"))
    }

    @Test func refusesRunsWithErrorsOrMissingFigures() {
        let socketErrors = Self.output.replacingOccurrences(
            of: "Requests/sec:", with: "  Socket errors: connect 0, read 0, write 0, timeout 1\nRequests/sec:")
        #expect(WrkResult.parse(socketErrors) == nil)
        let non2xx = Self.output.replacingOccurrences(of: "Requests/sec:", with: "  Non-2xx or 3xx responses: 3\nRequests/sec:")
        #expect(WrkResult.parse(non2xx) == nil)
        #expect(WrkResult.parse(Self.output.replacingOccurrences(of: "     99%    1.25s\n", with: "")) == nil)
        #expect(WrkResult.parse(Self.output.replacingOccurrences(of: "1.25s", with: "1.25m")) == nil)
    }
}
