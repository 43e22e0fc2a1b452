import HTTPTypes
import Hummingbird
import RalphAPI

/// Sends a reply: as server-sent events, each written to the socket as soon as it is produced, or as one JSON body.
/// `hang` and `cut` (``Ending``) break either kind of answer part way.
public enum Answer {
    /// Thrown out of a response body to make the server drop the connection without finishing the response (`cut`).
    struct Cut: Error {}

    /// The SSE answer: `events` (all of them for a complete answer, the opening ones for `hang` and `cut`), each after
    /// `delayMilliseconds`, then the ending. `request` must have had its body collected
    /// (``Request/collectBody(upTo:)``), so a `hang` can wait on the connection closing. `headers` are added to the
    /// content type and `cache-control: no-cache`.
    public static func events(
        _ events: [ServerSentEvent], delayMilliseconds delay: Int, ending: Ending, request: Request, headers: HTTPFields
    ) -> Response {
        var fields: HTTPFields = [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache"]
        fields.append(contentsOf: headers)
        return Response(
            status: .ok, headers: fields,
            body: ResponseBody { writer in
                for event in events {
                    if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
                    try await writer.write(ByteBuffer(bytes: event.bytes))
                }
                switch ending {
                case .complete: try await writer.finish(nil)
                case .cut: throw Cut()
                case .hang: try await stall(request)
                }
            })
    }

    /// The non-streaming answer, a JSON body. `hang` sends the headers and the first half of the body, then stalls;
    /// `cut` sends the same and drops the connection.
    public static func whole(_ value: JSONValue, ending: Ending, request: Request, headers: HTTPFields) -> Response {
        let body = JSONWriter.bytes(value)
        var fields: HTTPFields = [.contentType: "application/json"]
        fields.append(contentsOf: headers)
        if ending == .complete {
            return Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        return Response(
            status: .ok, headers: fields,
            body: ResponseBody(contentLength: body.count) { writer in
                try await writer.write(ByteBuffer(bytes: body.prefix(body.count / 2)))
                if ending == .cut { throw Cut() }
                try await stall(request)
            })
    }

    /// A JSON response with `status` and `headers`.
    public static func json(_ status: Int, _ value: JSONValue, headers: HTTPFields) -> Response {
        var fields: HTTPFields = [.contentType: "application/json"]
        fields.append(contentsOf: headers)
        return Response(
            status: Self.status(status), headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONWriter.bytes(value))))
    }

    /// The status with a reason phrase (the HTTP/1.1 status line always has one; 529 is Anthropic's own).
    public static func status(_ code: Int) -> HTTPResponse.Status {
        let phrases = [
            200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 408: "Request Timeout",
            409: "Conflict", 413: "Payload Too Large", 422: "Unprocessable Entity", 429: "Too Many Requests",
            500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout", 529: "Overloaded",
        ]
        return HTTPResponse.Status(code: code, reasonPhrase: phrases[code] ?? "Error")
    }

    /// Returns (by throwing `CancellationError`) only when the client closes the connection. Sleeping tasks take no
    /// thread, so a stalled answer does not hold up other requests.
    private static func stall(_ request: Request) async throws {
        try await request.body.consumeWithCancellationOnInboundClose { _ in
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
    }
}
