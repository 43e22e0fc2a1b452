import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// How the server treats connections: how long a client may take, and how many are served at once.
public struct ConnectionPolicy: Sendable {
    /// Time to send a complete request head, from its first byte (or from connecting).
    public var headerTimeout: TimeAmount
    /// Time a connection with no request open is kept; also the longest pause in a request body.
    public var idleTimeout: TimeAmount
    /// Connections served at once; beyond, `503`.
    public var maxConnections: Int

    public init(headerTimeout: TimeAmount, idleTimeout: TimeAmount, maxConnections: Int) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }
}

/// Hummingbird's HTTP/1 channel, guarded: each new connection is admitted by the ``ConnectionLimiter`` (or refused
/// with a `503` by an ``OverloadResponder``), timed by a ``ConnectionDeadlineHandler`` that sees its raw bytes, and
/// framed by ``ResponseFraming`` just after the HTTP/1 decoder.
struct GuardedHTTPChannel: ServerChildChannel {
    /// An admitted connection's HTTP channel, or a refused connection.
    enum Value: ServerChildChannelValue {
        case served(HTTP1Channel.Value)
        case refused(any Channel)

        var channel: any Channel {
            switch self {
            case .served(let value): value.channel
            case .refused(let channel): channel
            }
        }
    }

    let http: HTTP1Channel
    let policy: ConnectionPolicy
    let limiter: ConnectionLimiter

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let admission = limiter.admit()
        let limiter = self.limiter
        channel.closeFuture.whenComplete { _ in limiter.release(admission) }
        guard admission == .served else {
            let linger = admission == .refused(linger: true)
            let limit = limiter.maxConnections
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(OverloadResponder(limit: limit, linger: linger))
                return .refused(channel)
            }
        }
        // Called on the connection's event loop, before it is registered: the pipeline can be changed synchronously.
        do {
            let deadlines = ConnectionDeadlineHandler(
                headerTimeout: policy.headerTimeout, idleTimeout: policy.idleTimeout, idle: limiter.idle, logger: logger
            )
            try channel.pipeline.syncOperations.addHandler(deadlines, position: .first)
            // Reads start at 1 KB rather than NIO's 2 KB and grow with what comes: a request head is a few hundred
            // bytes, and each connection keeps its read buffer for as long as it is open (an event stream, for hours).
            try channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 1024, maximum: 65536))
            return http.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { value in
                let operations = channel.pipeline.syncOperations
                let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                try operations.addHandler(ResponseFraming(deadlines: deadlines), position: .after(decoder))
                return Value.served(value)
            }.nonisolated()
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
    }

    func handle(value: Value, logger: Logger) async {
        switch value {
        case .served(let served):
            await http.handle(value: served, logger: logger)
        case .refused(let channel):
            try? await channel.closeFuture.get()
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with ``GuardedHTTPChannel``'s limits.
    static func guarded(_ policy: ConnectionPolicy, limiter: ConnectionLimiter) -> HTTPServerBuilder {
        .init { responder in
            GuardedHTTPChannel(http: HTTP1Channel(responder: responder, configuration: .init()), policy: policy, limiter: limiter)
        }
    }
}
