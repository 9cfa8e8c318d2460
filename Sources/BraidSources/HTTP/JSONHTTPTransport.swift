import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// POSTs JSON to an HTTP search backend and maps every way that can fail onto
/// ``SearchSourceError``: unreachable → unavailable, past the deadline → timeout, non-2xx →
/// badResponse with the status. Shared by the Elasticsearch and the generic HTTP source.
struct JSONHTTPTransport: Sendable {
    let client: HTTPClient
    let timeout: TimeAmount
    var maxResponseBytes = 16 << 20

    /// The 2xx body, or a ``SearchSourceError``; cancellation of the calling task propagates.
    func post(_ url: String, body: Data, headers: [(String, String)] = []) async throws -> Data {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(data: body))
        let deadline = NIODeadline.now() + timeout
        do {
            let response = try await client.execute(request, deadline: deadline)
            let buffer = try await response.body.collect(upTo: maxResponseBytes)
            let data = Data(buffer: buffer)
            guard (200..<300).contains(Int(response.status.code)) else {
                throw SearchSourceError(
                    .badResponse, "\(url) answered \(response.status): \(Self.excerpt(data))", status: Int(response.status.code))
            }
            return data
        } catch let error as SearchSourceError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw Self.map(error, url: url)
        }
    }

    /// How a transport error reads to the gateway. Pure, so the mapping is testable.
    static func map(_ error: any Error, url: String) -> SearchSourceError {
        if let error = error as? HTTPClientError, timeouts.contains(error) {
            return SearchSourceError(.timeout, "\(url) did not answer in time (\(error))")
        }
        if error is NIOTooManyBytesError {
            return SearchSourceError(.badResponse, "\(url) sent a response larger than Braid reads (\(error))")
        }
        // Connection refused, DNS failures, resets and bad URLs: the backend cannot be reached.
        return SearchSourceError(.unavailable, "\(url) is unreachable (\(error))")
    }

    private static let timeouts: [HTTPClientError] = [
        .deadlineExceeded, .readTimeout, .writeTimeout, .getConnectionFromPoolTimeout,
    ]

    static func excerpt(_ data: Data) -> String {
        let text = String(decoding: data.prefix(300), as: UTF8.self)
        return text.isEmpty ? "(empty body)" : text
    }
}
