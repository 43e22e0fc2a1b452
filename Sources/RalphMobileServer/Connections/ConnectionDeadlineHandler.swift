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
    /// Where this connection is listed while it waits for its client, so a new connection at the limit may replace it.
    private let idle: IdleConnections?
    /// Whether it is listed there now.
    private var listedIdle = false
    /// Whether a request came on this connection.
    private var servedBefore = false
    /// Told once when the client closes its side of the connection (``observeInputClose(_:)``).
    private var inputCloseObserver: (@Sendable () -> Void)?
    /// The client closed its side, or the connection is closed.
    private var inputClosed = false

    init(headerTimeout: TimeAmount, idleTimeout: TimeAmount, idle: IdleConnections? = nil, logger: Logger) {
        state = ConnectionDeadlines(now: .now(), headerTimeout: headerTimeout, idleTimeout: idleTimeout)
        self.idle = idle
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        state = ConnectionDeadlines(now: .now(), headerTimeout: state.headerTimeout, idleTimeout: state.idleTimeout)
        reschedule()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
        unlistIdle(context.channel)
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        updateIdleListing()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        state.bytesRead(at: .now())
        reschedule()
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        unlistIdle(context.channel)
        noteInputClosed()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { noteInputClosed() }
        context.fireUserInboundEventTriggered(event)
    }

    /// Calls `observer` once, on the connection's loop, when the client closes its side of the connection or the
    /// connection closes — at once if that has happened already. For a response written for as long as the client
    /// stays (an event stream): it needs no task of its own reading the request side to notice the client leaving.
    /// One observer at a time; ``stopObservingInputClose()`` drops it.
    func observeInputClose(_ observer: @escaping @Sendable () -> Void) {
        guard !inputClosed else { return observer() }
        inputCloseObserver = observer
    }

    func stopObservingInputClose() {
        inputCloseObserver = nil
    }

    private func noteInputClosed() {
        inputClosed = true
        let observer = inputCloseObserver
        inputCloseObserver = nil
        observer?()
    }

    /// A request head was parsed.
    func headReceived() {
        servedBefore = true
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

    /// Writes bytes of a response body as they go on the wire (already framed), from the connection's loop: the fast
    /// path of an event stream (``DirectSink``).
    func writeDirect(_ bytes: ByteBuffer) {
        context?.write(wrapOutboundOut(bytes), promise: nil)
    }

    func flushDirect() {
        context?.flush()
    }

    /// Lists the connection as idle while it waits for its first byte of a request, and only then.
    private func updateIdleListing() {
        guard let idle, let context, context.channel.isActive else { return }
        let waiting = if case .waiting = state.phase { true } else { false }
        guard waiting != listedIdle else { return }
        listedIdle = waiting
        if waiting { idle.started(context.channel, servedBefore: servedBefore) } else { idle.ended(context.channel) }
    }

    private func unlistIdle(_ channel: any Channel) {
        guard listedIdle else { return }
        listedIdle = false
        idle?.ended(channel)
    }

    private func reschedule() {
        updateIdleListing()
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
