import Hummingbird
import Logging

/// Logs each finished request once, at info: method, path, route pattern, status, duration — and, from the logger's
/// metadata, its request id (``RequestIDMiddleware``). A streamed response (an event stream, a file without a known
/// length) is logged when its body ends, with the whole time it was open; any other when its response is ready. The
/// query string is left out on purpose: SSE clients pass their key as `?token=`, and keys do not belong in logs.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var response = try await next(request, context)
        let logger = context.logger
        let line: Logger.Message = "\(request.method.rawValue) \(request.uri.path) \(response.status.code)"
        let route = context.endpointPath ?? "NotFound"
        guard response.body.contentLength == nil else {
            logger.info(line, metadata: ["route": "\(route)", "duration_ms": "\(Self.milliseconds(ContinuousClock.now - start))"])
            return response
        }
        let body = response.body
        response.body = ResponseBody { writer in
            do {
                try await body.write(writer)
            } catch {
                logger.info(line, metadata: ["route": "\(route)", "duration_ms": "\(Self.milliseconds(ContinuousClock.now - start))", "ended": "\(error)"])
                throw error
            }
            logger.info(line, metadata: ["route": "\(route)", "duration_ms": "\(Self.milliseconds(ContinuousClock.now - start))"])
        }
        return response
    }

    /// `duration` in milliseconds, to the microsecond.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        return String(format: "%.3f", Double(micros) / 1000)
    }
}
