import HTTPTypes
import Hummingbird
import ModelAPIDouble
import RalphAPI

/// An error answer in the real API's shape: HTTP status, `{"type":"error","error":{"type":…,"message":…}}`, a
/// `request-id` header, and `retry-after: 1` on 429.
struct APIError: Error, Sendable {
    var status: Int
    var type: String
    var message: String

    init(status: Int, type: String? = nil, message: String? = nil) {
        self.status = status
        self.type = type ?? Self.type(for: status)
        self.message = message ?? Self.defaultMessage(for: status)
    }

    /// A scripted `error` or `fail`.
    init(_ scripted: ScriptedError) {
        self.init(status: scripted.status, message: scripted.message)
    }

    static let notFound = APIError(status: 404, message: "Not found")
    static let unauthenticated = APIError(status: 401, message: "invalid x-api-key")

    /// A 400 `invalid_request_error` with `message`.
    static func invalidRequest(_ message: String) -> APIError {
        APIError(status: 400, message: message)
    }

    /// The error type the real API gives each status.
    static func type(for status: Int) -> String {
        switch status {
        case 400: "invalid_request_error"
        case 401: "authentication_error"
        case 403: "permission_error"
        case 404: "not_found_error"
        case 413: "request_too_large"
        case 429: "rate_limit_error"
        case 529: "overloaded_error"
        default: "api_error"
        }
    }

    /// A message in the real API's words, for an `error` without one.
    static func defaultMessage(for status: Int) -> String {
        switch status {
        case 400: "Invalid request"
        case 401: "invalid x-api-key"
        case 403: "Your API key does not have permission to use the specified resource."
        case 404: "Not found"
        case 413: "Request exceeds the maximum allowed number of bytes."
        case 429: "Number of requests has exceeded your rate limit"
        case 529: "Overloaded"
        default: "Internal server error"
        }
    }

    /// The JSON body.
    var body: JSONValue {
        ["type": "error", "error": ["type": .string(type), "message": .string(message)]]
    }

    /// The whole response.
    func response(requestID: String) -> Response {
        var response = Wire.json(status, body, requestID: requestID)
        if status == 429 { response.headers[.retryAfter] = "1" }
        return response
    }
}

/// Response helpers of the JSON and SSE answers.
enum Wire {
    /// A JSON response with the `request-id` header.
    static func json(_ status: Int, _ value: JSONValue, requestID: String) -> Response {
        Answer.json(status, value, headers: [.requestID: requestID])
    }
}

extension HTTPField.Name {
    /// The real API's request id header.
    static let requestID = HTTPField.Name("request-id")!
    /// The Anthropic SDK's retry counter (0 for a first attempt).
    static let stainlessRetryCount = HTTPField.Name("x-stainless-retry-count")!
    /// The Anthropic API key header.
    static let apiKey = HTTPField.Name("x-api-key")!
}
