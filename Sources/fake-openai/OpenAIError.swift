import HTTPTypes
import Hummingbird
import ModelAPIDouble
import RalphAPI

/// An error answer in the real API's shape: HTTP status, `{"error":{"message","type","param","code"}}`, an
/// `x-request-id` header, and `retry-after: 1` on 429.
struct OpenAIError: Error, Sendable {
    var status: Int
    var message: String
    var type: String
    var param: String?
    var code: String?

    init(status: Int, message: String? = nil, param: String? = nil, code: String? = nil) {
        self.status = status
        self.message = message ?? Self.defaultMessage(for: status)
        self.type = Self.type(for: status)
        self.param = param
        self.code = code ?? Self.defaultCode(for: status)
    }

    /// A scripted `error` or `fail`.
    init(_ scripted: ScriptedError) {
        self.init(status: scripted.status, message: scripted.message)
    }

    /// A 400 `invalid_request_error` with `message`.
    static func invalidRequest(_ message: String, param: String? = nil, code: String? = nil) -> OpenAIError {
        OpenAIError(status: 400, message: message, param: param, code: code)
    }

    /// A missing required parameter, worded as the real API words it.
    static func missing(_ param: String) -> OpenAIError {
        .invalidRequest("Missing required parameter: '\(param)'.", param: param, code: "missing_required_parameter")
    }

    /// A script step that needs a tool the request does not offer.
    static func missingTool(_ what: String, offered: [String]) -> OpenAIError {
        .invalidRequest(
            "fake-openai: \(what); the request offers: \(offered.isEmpty ? "no tools" : offered.joined(separator: ", "))", param: "tools")
    }

    /// An unknown path.
    static func invalidURL(method: String, path: String) -> OpenAIError {
        OpenAIError(status: 404, message: "Invalid URL (\(method) \(path))")
    }

    /// The error type the real API gives each status.
    static func type(for status: Int) -> String {
        switch status {
        case 429: "requests"
        case 500...: "server_error"
        default: "invalid_request_error"
        }
    }

    /// The code the real API gives each status, where it gives one.
    static func defaultCode(for status: Int) -> String? {
        switch status {
        case 401: "invalid_api_key"
        case 429: "rate_limit_exceeded"
        default: nil
        }
    }

    /// A message in the real API's words, for an `error` without one.
    static func defaultMessage(for status: Int) -> String {
        switch status {
        case 400: "Invalid request."
        case 401: "Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys."
        case 403: "You are not allowed to sample from this model"
        case 404: "The model does not exist or you do not have access to it."
        case 429: "Rate limit reached for requests. Please try again in 1s."
        case 503: "The engine is currently overloaded, please try again later"
        case 500...: "The server had an error while processing your request. Sorry about that!"
        default: "Invalid request."
        }
    }

    /// The JSON body.
    var body: JSONValue {
        [
            "error": [
                "message": .string(message), "type": .string(type), "param": param.map(JSONValue.string) ?? nil,
                "code": code.map(JSONValue.string) ?? nil,
            ]
        ]
    }

    /// The whole response.
    func response(requestID: String) -> Response {
        var headers: HTTPFields = [.openAIRequestID: requestID]
        if status == 429 { headers[.retryAfter] = "1" }
        return Answer.json(status, body, headers: headers)
    }
}

extension HTTPField.Name {
    /// The real API's request id header.
    static let openAIRequestID = HTTPField.Name("x-request-id")!
}
