import HTTPTypes
import Hummingbird
import Logging

/// Gives every request an id: the caller's `X-Request-Id` when it is sane (1–128 characters of letters, digits and
/// `-_.:`), else a new random one. The id is sent back in the response's `X-Request-Id` and put into the request's
/// logger metadata (`request_id`, and Hummingbird's own `hb.request.id`, so `context.id` agrees), so every log line of
/// the work the request does carries it. The request is handled with the id in ``RequestTrace/id`` too, so work it
/// hands on (a conversation's queued step, the agent process that step starts, that process's exit) logs it as well
/// through ``RequestTrace/metadataProvider``.
///
/// A header that is not sane is not an error (a proxy's id format is not the caller's fault): it is replaced, and the
/// replacement is what the response and the logs say.
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// The longest id taken from a caller.
    static let maxLength = 128

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = request.headers[.xRequestID].flatMap(Self.accepted) ?? Self.generate()
        var context = context
        context.logger[metadataKey: "request_id"] = .string(id)
        context.logger[metadataKey: "hb.request.id"] = .string(id)
        var response = try await RequestTrace.$id.withValue(id) { try await next(request, context) }
        response.headers[.xRequestID] = id
        return response
    }

    /// `value` when it is a sane id, else nil.
    static func accepted(_ value: String) -> String? {
        guard (1...maxLength).contains(value.utf8.count) else { return nil }
        let allowed = value.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"): true
            default: false
            }
        }
        return allowed ? value : nil
    }

    /// A new id: 16 random bytes in hex.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// The id of the request whose work the current task does.
public enum RequestTrace {
    /// Set while a request is handled, and carried by hand to work that request queues for another task (a
    /// conversation's steps); tasks started from either inherit it.
    @TaskLocal public static var id: String?

    /// Adds `request_id` to a log line written while ``id`` is set: give it to `LoggingSystem.bootstrap`, or to a
    /// logger, so that lines logged away from the request's own logger carry the id too.
    public static let metadataProvider = Logger.MetadataProvider {
        guard let id = RequestTrace.id else { return [:] }
        return ["request_id": .string(id)]
    }
}

extension AppRequestContext {
    /// The request's id (``RequestIDMiddleware``), nil before that middleware ran.
    var requestID: String? {
        guard case .string(let id)? = logger[metadataKey: "request_id"] else { return nil }
        return id
    }
}

extension HTTPField.Name {
    static let xRequestID = HTTPField.Name("X-Request-Id")!
}
