import NIOCore
import NIOHTTP1

/// Fits each response to its request and ends the connection when it must end, between the HTTP/1 codec and the rest
/// of the server (which sees only HTTP/1.1):
///
/// - **HTTP/1.0.** Its clients cannot read chunked bodies. Their responses go out as HTTP/1.0 without
///   `Transfer-Encoding`: with `Content-Length` when the length is known, otherwise ended by closing the connection (an
///   SSE stream, a followed log). Such a connection serves one request.
/// - **`Connection: close`**, in the request or the response (a stream that ended, a `413`): after the response, the
///   server stops writing and stops reading what the client still sends (a body it refused, say), and closes for good
///   when the client does or after ``lingerTime`` — closing at once could reset the connection before the client has
///   read the answer.
/// - It tells the connection's ``ConnectionDeadlineHandler`` where requests and responses begin and end.
final class ResponseFraming: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// How one response must be sent.
    struct Rule {
        var version: HTTPVersion
        var close: Bool
    }

    /// How long a closing connection waits for its client to close before closing anyway.
    static let lingerTime: TimeAmount = .seconds(2)

    private let deadlines: ConnectionDeadlineHandler?
    /// One rule per request whose response has not ended, oldest first (HTTP/1.1 answers in order).
    private var rules: [Rule] = []
    private var lingering = false
    /// How the body of the response being written goes on the wire, when its length is not fixed: as HTTP/1.1 chunks,
    /// or as is (HTTP/1.0, ended by the close). Nil between responses and for a body of known length.
    private(set) var bodyFraming: DirectSink.Framing?
    private var lingerEnd: Scheduled<Void>?

    init(deadlines: ConnectionDeadlineHandler?) {
        self.deadlines = deadlines
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !lingering else { return }
        switch unwrapInboundIn(data) {
        case .head(var head):
            let legacy = head.version.major < 1 || (head.version.major == 1 && head.version.minor == 0)
            let close = legacy || Self.asksToClose(head.headers)
            rules.append(Rule(version: legacy ? .http1_0 : .http1_1, close: close))
            // The server's request loop ends after a response to a request that says `close`.
            if close { head.headers.replaceOrAdd(name: "connection", value: "close") }
            deadlines?.headReceived()
            context.fireChannelRead(wrapInboundOut(.head(head)))
        case .body:
            context.fireChannelRead(data)
        case .end:
            deadlines?.requestEnded()
            context.fireChannelRead(data)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            guard head.status.code >= 200 else {
                context.write(data, promise: promise)
                return
            }
            if rules.isEmpty { rules.append(Rule(version: .http1_1, close: false)) }
            if Self.asksToClose(head.headers) { rules[0].close = true }
            if rules[0].version != .http1_1 {
                // Without Transfer-Encoding and with version 1.0 the encoder sends the body as is, ended by the close.
                head.version = rules[0].version
                head.headers.remove(name: "transfer-encoding")
            }
            if rules[0].close { head.headers.replaceOrAdd(name: "connection", value: "close") }
            // As the HTTP/1 encoder frames it: chunked for 1.1 without a length (it adds the header), as is for 1.0.
            let lengthKnown = !head.headers[canonicalForm: "content-length"].isEmpty
            let chunkedAsked = head.headers[canonicalForm: "transfer-encoding"].contains { $0.lowercased() == "chunked" }
            bodyFraming = lengthKnown ? nil : head.version == .http1_1 ? .chunked : chunkedAsked ? nil : .raw
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            bodyFraming = nil
            let rule = rules.isEmpty ? Rule(version: .http1_1, close: false) : rules.removeFirst()
            deadlines?.responseEnded()
            guard rule.close else {
                context.write(data, promise: promise)
                return
            }
            context.writeAndFlush(data, promise: promise)
            linger(context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if lingering, let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Stops writing, drops what the client still sends, and closes when it closes or after ``lingerTime``.
    private func linger(context: ChannelHandlerContext) {
        guard !lingering else { return }
        lingering = true
        context.close(mode: .output, promise: nil)
        lingerEnd = context.eventLoop.assumeIsolated().scheduleTask(in: Self.lingerTime) { context.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        lingerEnd?.cancel()
        lingerEnd = nil
    }

    /// Whether a `Connection` header lists `close`.
    static func asksToClose(_ headers: HTTPHeaders) -> Bool {
        headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
    }
}

@available(*, unavailable)
extension ResponseFraming: Sendable {}
