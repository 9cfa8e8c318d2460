import BraidContracts
import BraidObservability
import Hummingbird
import Metrics

/// Request counts (`braid_http_requests_total{route,status}`) and latency histograms
/// (`braid_http_request_duration_seconds{route}`), labelled by the matched route pattern
/// rather than the raw path so label cardinality stays bounded.
struct HTTPMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var status = 500
        defer {
            let route = context.endpointPath ?? "unmatched"
            Counter(.httpRequests, dimensions: [("route", route), ("status", String(status))]).increment()
            Metrics.Timer(.httpRequestDurationSeconds, dimensions: [("route", route)], preferredDisplayUnit: .seconds)
                .record(duration: ContinuousClock.now - start)
        }
        let response = try await next(request, context)
        status = response.status.code
        return response
    }
}
