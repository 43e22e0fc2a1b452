import Logging
import NIOCore
import RalphAPI

/// Enforces ``ConnectionDeadlines`` on one connection. It sits first in the pipeline, so it sees every byte the client
/// sends (a head that trickles in included), and ``ResponseFraming`` tells it where requests and responses begin and
/// end.
///
/// One timer at a time: it is moved earlier when a deadline comes closer, and otherwise left to fire and look again,
/// so a busy keep-alive connection costs no timer work per request.
final class ConnectionDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var state: ConnectionDeadlines
    private var context: ChannelHandlerContext?
    private var timer: Scheduled<Void>?
    private var timerAt: NIODeadline?
    private let logger: Logger

    init(headerTimeout: TimeAmount, idleTimeout: TimeAmount, logger: Logger) {
        state = ConnectionDeadlines(now: .now(), headerTimeout: headerTimeout, idleTimeout: idleTimeout)
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        state = ConnectionDeadlines(now: .now(), headerTimeout: state.headerTimeout, idleTimeout: state.idleTimeout)
        reschedule()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        state.bytesRead(at: .now())
        reschedule()
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    /// A request head was parsed.
    func headReceived() {
        state.headReceived(at: .now())
        reschedule()
    }

    /// A request's body ended.
    func requestEnded() {
        state.requestEnded(at: .now())
        reschedule()
    }

    /// A response ended.
    func responseEnded() {
        state.responseEnded(at: .now())
        reschedule()
    }

    private func reschedule() {
        guard let context, let deadline = state.deadline else { return }
        if let timerAt, timerAt <= deadline { return }
        timer?.cancel()
        timerAt = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in self?.fire() }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
        timerAt = nil
    }

    private func fire() {
        timer = nil
        timerAt = nil
        guard let context else { return }
        guard let expiry = state.expiry(at: .now()) else {
            reschedule()
            return
        }
        logger.debug("closing a connection", metadata: ["reason": "\(expiry)", "peer": "\(context.channel.remoteAddress?.description ?? "?")"])
        switch expiry {
        case .slowHead:
            // Someone started a request: tell them why it ends. No response is in progress in this phase.
            let seconds = state.headerTimeout.nanoseconds / 1_000_000_000
            let answer = RawErrorResponse.make(
                status: 408, reason: "Request Timeout",
                error: ErrorResponse(prefix: .requestTimeout, detail: "the request head did not arrive within \(seconds) s")
            )
            context.writeAndFlush(wrapOutboundOut(answer)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        case .idle, .stalledBody:
            context.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension ConnectionDeadlineHandler: Sendable {}
