import Hummingbird
import Logging

/// Turns every error into a JSON error response: ``GatewayError`` as it is (a 5xx with its
/// public message, its details logged), Hummingbird's own errors (unknown route, wrong
/// method, oversized body) with their status, and anything else into a 500 that is logged —
/// a bug, since bad input must never produce a 500.
struct JSONErrorMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let proxies: TrustedProxies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as GatewayError {
            if error.isUnavailable {
                context.logger.warning(
                    "request failed", metadata: ["code": "\(error.code)", "detail": "\(error.message)", "path": "\(request.uri.path)", "client": "\(client(request, context))"])
            }
            return JSONResponse.error(status: error.status, code: error.code, message: error.publicMessage, headers: error.headers)
        } catch let error as any HTTPResponseError {
            let status = error.status
            let message = (error as? HTTPError)?.body ?? status.reasonPhrase
            return JSONResponse.error(status: status, code: Self.code(for: status), message: message)
        } catch {
            context.logger.error("unhandled error", metadata: ["error": "\(error)", "path": "\(request.uri.path)", "client": "\(client(request, context))"])
            return JSONResponse.error(status: .internalServerError, code: "internal", message: "internal error")
        }
    }

    private func client(_ request: Request, _ context: Context) -> String {
        proxies.client(of: request, context: context) ?? "-"
    }

    static func code(for status: HTTPResponse.Status) -> String {
        switch status {
        case .notFound: "not_found"
        case .methodNotAllowed: "method_not_allowed"
        case .contentTooLarge: "payload_too_large"
        case .unsupportedMediaType: "unsupported_media_type"
        case .serviceUnavailable: "unavailable"
        default: status.code < 500 ? "bad_request" : "internal"
        }
    }
}
