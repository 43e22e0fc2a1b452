import Hummingbird
import Logging

/// Logs each request at debug level: method, path, status and duration. The query string is left out on purpose:
/// SSE clients pass their key as `?token=`, and keys do not belong in logs.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        context.logger.debug("\(request.method.rawValue) \(request.uri.path) \(response.status.code)", metadata: ["elapsed": "\(ContinuousClock.now - start)"])
        return response
    }
}
