import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One scrape of a Prometheus text endpoint (`/metrics` of a worker): samples by their full
/// name with labels, e.g. `braid_worker_paused{dependency="search_source"}`.
public struct MetricsScrape: Sendable {
    public let samples: [String: Double]

    public static func fetch(port: Int) async throws -> MetricsScrape {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics")
        request.method = .GET
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 4 << 20)
        return MetricsScrape(text: String(buffer: body))
    }

    public init(text: String) {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        self.samples = samples
    }

    /// The sum of every sample of a metric (all label combinations).
    public func total(_ name: String) -> Double {
        samples.filter { $0.key == name || $0.key.hasPrefix(name + "{") }.values.reduce(0, +)
    }

    public subscript(_ sample: String) -> Double? { samples[sample] }
}
