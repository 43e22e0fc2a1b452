import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RalphAPI

/// Every error a route can return, mapped in one place to the contract's `{"error": "<prefix>: <detail>"}` bodies.
public enum APIError: Error, Sendable, Equatable {
    case sessionNotFound(String?)
    case ambiguousID(String, matches: [String])
    case unauthorized
    case forbidden(needs: Role)
    /// Forbidden for a reason other than the caller's role.
    case forbiddenAction(String)
    case configNotFound(String)
    case promptNotFound(String)
    case invalidPath(String)
    case invalidTopic(String)
    case failedToSpawn(String)
    case notRunning(String)
    case conflict(String)
    case questionNotFound(String)
    /// Any other contract error: a status, an error prefix and a detail.
    case other(HTTPResponse.Status, ErrorPrefix, String)
    case invalidBody(String)
    case invalidParameter(String)
    case notFound(String)
    case methodNotAllowed(method: String, path: String, allowed: [String])
    /// `413`: a body over the upload limit. The connection is closed after the answer, so the rest of the body is
    /// never read.
    case payloadTooLarge(String)
    /// `429` with `Retry-After: <seconds>`: too many failed keys from one address.
    case tooManyRequests(String, retryAfter: Int)
    /// `421`: a `Host` this server does not answer for (a trusted loopback server answers only loopback names).
    case misdirectedRequest(String)
    /// `415`: a request that changes something, sent with a body that is not declared as JSON.
    case unsupportedMediaType(String)
    case internalError(String)

    public var status: HTTPResponse.Status {
        switch self {
        case .sessionNotFound, .notFound, .configNotFound, .promptNotFound, .questionNotFound: .notFound
        case .ambiguousID, .notRunning, .conflict: .conflict
        case .unauthorized: .unauthorized
        case .forbidden, .forbiddenAction: .forbidden
        case .invalidBody, .invalidParameter, .invalidPath, .invalidTopic: .badRequest
        case .failedToSpawn: .internalServerError
        case .other(let status, _, _): status
        case .methodNotAllowed: .methodNotAllowed
        case .payloadTooLarge: .contentTooLarge
        case .tooManyRequests: .tooManyRequests
        case .misdirectedRequest: .misdirectedRequest
        case .unsupportedMediaType: .unsupportedMediaType
        case .internalError: .internalServerError
        }
    }

    public var body: ErrorResponse {
        switch self {
        case .sessionNotFound(let detail): ErrorResponse(prefix: .sessionNotFound, detail: detail)
        case .ambiguousID(let id, let matches):
            ErrorResponse(prefix: .conflict, detail: "ambiguous id '\(id)' matches \(matches.count) sessions: \(matches.prefix(5).joined(separator: ", "))")
        case .unauthorized: ErrorResponse(prefix: .unauthorized, detail: nil)
        case .forbidden(let role): ErrorResponse(prefix: .forbidden, detail: "needs \(role.rawValue)")
        case .forbiddenAction(let detail): ErrorResponse(prefix: .forbidden, detail: detail)
        case .configNotFound(let detail): ErrorResponse(prefix: .configNotFound, detail: detail)
        case .promptNotFound(let detail): ErrorResponse(prefix: .promptNotFound, detail: detail)
        case .invalidPath(let detail): ErrorResponse(prefix: .invalidPath, detail: detail)
        case .invalidTopic(let detail): ErrorResponse(prefix: .invalidTopic, detail: detail)
        case .failedToSpawn(let detail): ErrorResponse(prefix: .failedToSpawn, detail: detail)
        case .notRunning(let detail): ErrorResponse(prefix: .notRunning, detail: detail)
        case .conflict(let detail): ErrorResponse(prefix: .conflict, detail: detail)
        case .questionNotFound(let detail): ErrorResponse(prefix: .questionNotFound, detail: detail)
        case .other(_, let prefix, let detail): ErrorResponse(prefix: prefix, detail: detail)
        case .invalidBody(let detail): ErrorResponse(prefix: .invalidBody, detail: detail)
        case .invalidParameter(let detail): ErrorResponse(prefix: .invalidParameter, detail: detail)
        case .notFound(let detail): ErrorResponse(prefix: .notFound, detail: detail)
        case .methodNotAllowed(let method, let path, let allowed):
            ErrorResponse(prefix: .methodNotAllowed, detail: "\(method) is not allowed on \(path); use \(allowed.joined(separator: ", "))")
        case .payloadTooLarge(let detail): ErrorResponse(prefix: .payloadTooLarge, detail: detail)
        case .tooManyRequests(let detail, _): ErrorResponse(prefix: .tooManyRequests, detail: detail)
        case .misdirectedRequest(let detail): ErrorResponse(prefix: .misdirectedRequest, detail: detail)
        case .unsupportedMediaType(let detail): ErrorResponse(prefix: .unsupportedMediaType, detail: detail)
        case .internalError(let detail): ErrorResponse(prefix: .internalError, detail: detail)
        }
    }

    /// `503 host_offline:` — a run or conversation of a host that is offline.
    static func hostOffline(_ detail: String) -> APIError { .other(.serviceUnavailable, .hostOffline, detail) }

    /// The JSON body of the error, as ``response()`` sends it.
    func responseBody() -> [UInt8] {
        (try? Array(WireJSON.encode(body))) ?? Array(#"{"error":"internal_error"}"#.utf8)
    }

    public func response() -> Response {
        var response = JSONResponse.make(body, status: status)
        if case .methodNotAllowed(_, _, let allowed) = self {
            response.headers[.allow] = allowed.joined(separator: ", ")
        }
        if case .unauthorized = self {
            response.headers[.wwwAuthenticate] = "Bearer"
        }
        if case .tooManyRequests(_, let seconds) = self {
            response.headers[.retryAfter] = String(max(1, seconds))
        }
        if case .payloadTooLarge = self {
            // What is left of the body is not worth reading: the connection ends after this answer.
            response.headers[.connection] = "close"
        }
        return response
    }
}

/// JSON responses.
public enum JSONResponse {
    /// The 500 answered when a response cannot be encoded.
    static func encodingFailed() -> Response {
        var buffer = ByteBuffer()
        buffer.writeString(#"{"error":"internal_error: response encoding failed"}"#)
        return Response(status: .internalServerError, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: buffer))
    }

    /// The encoder of every JSON response: the wire's (``WireJSON``), compact, sorted keys, slashes as is.
    static func encoder() -> JSONEncoder {
        WireJSON.encoder()
    }

    /// Encodes `value` as a JSON response. Encoding our own wire types cannot fail; if it ever does, the client gets a
    /// 500 that says so rather than a crash.
    public static func make<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = encoder()
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            return encodingFailed()
        }
        var buffer = ByteBuffer()
        buffer.writeBytes(data)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: buffer))
    }
}
