import Hummingbird
import RalphAPI

/// Sends a ``Reply``: as server-sent events, each written to the socket as soon as it is produced, or as one JSON
/// message. `hang` and `cut` break either kind of answer part way.
enum Answer {
    /// Thrown out of a response body to make the server drop the connection without finishing the response (`cut`).
    struct Cut: Error {}

    /// The SSE answer. `request` must have had its body collected (``Request/collectBody(upTo:)``), so a `hang` can
    /// wait on the connection closing.
    static func events(_ reply: Reply, request: Request, requestID: String) -> Response {
        let delay = reply.step.delayMilliseconds
        let ending = reply.step.ending
        let events = ending == .complete ? reply.events : reply.openingEvents
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache", .requestID: requestID],
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

    /// The non-streaming answer. `hang` sends the headers and the first half of the body, then stalls; `cut` sends
    /// the same and drops the connection.
    static func message(_ reply: Reply, request: Request, requestID: String) -> Response {
        let body = JSONWriter.bytes(reply.message)
        let headers: HTTPFields = [.contentType: "application/json", .requestID: requestID]
        let ending = reply.step.ending
        if ending == .complete {
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(contentLength: body.count) { writer in
                try await writer.write(ByteBuffer(bytes: body.prefix(body.count / 2)))
                if ending == .cut { throw Cut() }
                try await stall(request)
            })
    }

    /// Returns (by throwing `CancellationError`) only when the client closes the connection. Sleeping tasks take no
    /// thread, so a stalled answer does not hold up other requests.
    private static func stall(_ request: Request) async throws {
        try await request.body.consumeWithCancellationOnInboundClose { _ in
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
    }
}
