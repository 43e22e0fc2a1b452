import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import RalphAPI

/// The notification figure's far end: an HTTP/1.1 server on 127.0.0.1 (port 0) inside the bench process, registered
/// with the server as a webhook device. It stamps CLOCK_MONOTONIC the moment a request's head is decoded (the same
/// clock, in the same process, as the writer's stamp, so the difference is the whole event → push path), then decodes
/// the body as the ``NotificationMessage`` every channel carries and answers `200`.
///
/// A body that is not a message is kept as a failure and answered `400`, so the bench can say what was wrong instead
/// of counting it as lost.
final class WebhookReceiver: Sendable {
    /// One request that carried a message.
    struct Arrival: Sendable {
        /// CLOCK_MONOTONIC (ns) when the request head arrived.
        var at: Int64
        var message: NotificationMessage
    }

    /// `http://127.0.0.1:<port>/hook`.
    let url: String
    private let channel: any Channel
    private let state: NIOLockedValueBox<(arrivals: [Arrival], failures: [String])> = NIOLockedValueBox(([], []))

    private init(channel: any Channel, port: Int) {
        self.channel = channel
        url = "http://127.0.0.1:\(port)/hook"
    }

    /// Listens on a free loopback port.
    static func start(group: MultiThreadedEventLoopGroup) async throws -> WebhookReceiver {
        let box = NIOLockedValueBox<WebhookReceiver?>(nil)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    guard let receiver = box.withLockedValue({ $0 }) else { throw BenchError("webhook receiver: a request before it was ready") }
                    try child.pipeline.syncOperations.configureHTTPServerPipeline()
                    try child.pipeline.syncOperations.addHandler(WebhookHandler(receiver: receiver))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else {
            try await channel.close()
            throw BenchError("webhook receiver: no local port after bind")
        }
        let receiver = WebhookReceiver(channel: channel, port: port)
        box.withLockedValue { $0 = receiver }
        return receiver
    }

    func stop() async throws {
        try await channel.close()
    }

    /// Every message received so far, in arrival order.
    var arrivals: [Arrival] { state.withLockedValue { $0.arrivals } }
    /// What was wrong with each request that did not carry a message.
    var failures: [String] { state.withLockedValue { $0.failures } }

    fileprivate func received(_ arrival: Arrival) { state.withLockedValue { $0.arrivals.append(arrival) } }
    fileprivate func refused(_ reason: String) { state.withLockedValue { $0.failures.append(reason) } }
}

/// One connection of the receiver (AsyncHTTPClient keeps it alive between deliveries). Touched only on its event loop.
private final class WebhookHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let receiver: WebhookReceiver
    private var head: HTTPRequestHead?
    private var arrivedAt: Int64 = 0
    private var body: [UInt8] = []

    init(receiver: WebhookReceiver) {
        self.receiver = receiver
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            arrivedAt = monotonicNanos()
            head = requestHead
            body.removeAll(keepingCapacity: true)
        case .body(let buffer):
            body += buffer.readableBytesView
        case .end:
            guard let requestHead = head else { return }
            head = nil
            let status = handle(requestHead)
            respond(context: context, status: status, keepAlive: requestHead.isKeepAlive)
        }
    }

    /// Keeps the message (or why there is none); the status to answer with.
    private func handle(_ requestHead: HTTPRequestHead) -> HTTPResponseStatus {
        guard requestHead.method == .POST, requestHead.uri == "/hook" else {
            receiver.refused("\(requestHead.method) \(requestHead.uri): not the hook")
            return .notFound
        }
        guard requestHead.headers.first(name: "X-Ralph-Mobile-Signature")?.hasPrefix("sha256=") == true else {
            receiver.refused("a POST without X-Ralph-Mobile-Signature")
            return .badRequest
        }
        do {
            let message = try WireJSON.decode(NotificationMessage.self, from: Data(body))
            receiver.received(.init(at: arrivedAt, message: message))
            return .ok
        } catch {
            receiver.refused("a body that is not a NotificationMessage (\(error)): \(String(decoding: body.prefix(300), as: UTF8.self))")
            return .badRequest
        }
    }

    private func respond(context: ChannelHandlerContext, status: HTTPResponseStatus, keepAlive: Bool) {
        var headers = HTTPHeaders([("Content-Length", "0")])
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        let done = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: done)
        if !keepAlive {
            let channel = context.channel
            done.futureResult.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// A connection the server's client drops (an idle pooled connection) is no failure of a delivery: one that broke
    /// mid-request shows up as a question that never arrived.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
