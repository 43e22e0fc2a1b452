import NIOCore
import RalphAPI

/// The whole pipeline of a connection over the limit: it answers `503 unavailable: …` with `Retry-After` as soon as
/// the connection is up, without reading the request, and closes. With `linger` it first only stops writing and drops
/// what the client sends, so the client reads the answer rather than a reset, and closes when the client does or
/// after a second.
final class OverloadResponder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let lingerTime: TimeAmount = .seconds(1)

    private let limit: Int
    private let linger: Bool
    private var answered = false
    private var lingerEnd: Scheduled<Void>?

    init(limit: Int, linger: Bool) {
        self.limit = limit
        self.linger = linger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { answer(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        answer(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { context.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        lingerEnd?.cancel()
        lingerEnd = nil
    }

    private func answer(_ context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let response = RawErrorResponse.make(
            status: 503, reason: "Service Unavailable",
            error: ErrorResponse(prefix: .unavailable, detail: "the server is serving its limit of \(limit) connections; retry shortly"),
            headers: [("Retry-After", "1")]
        )
        let written = context.writeAndFlush(wrapOutboundOut(response))
        guard linger else {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            return
        }
        written.assumeIsolated().whenComplete { _ in context.close(mode: .output, promise: nil) }
        lingerEnd = context.eventLoop.assumeIsolated().scheduleTask(in: Self.lingerTime) { context.close(promise: nil) }
    }
}

@available(*, unavailable)
extension OverloadResponder: Sendable {}
