import HTTPTypes
import Hummingbird

/// Refuses a request whose declared body is over the upload limit (2 MB) with `413 payload_too_large: …` before a
/// byte of it is read; the connection is then closed (``ResponseFraming``), so the rest is never read either. A body
/// sent in chunks is stopped at the limit by the decoder, with the same answer.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let declared = request.headers[.contentLength].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), declared > context.maxUploadSize {
            throw Self.tooLarge(limit: context.maxUploadSize)
        }
        return try await next(request, context)
    }

    /// The `413` for a body over `limit` bytes.
    static func tooLarge(limit: Int) -> APIError {
        .payloadTooLarge("bodies are limited to \(limit / (1024 * 1024)) MB")
    }
}
