import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 channel with ``ResponseFraming`` just after the HTTP/1 decoder.
struct GuardedHTTPChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        // Called on the connection's event loop, before it is registered: the pipeline can be changed synchronously.
        http.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(ResponseFraming(), position: .after(decoder))
            return value
        }.nonisolated()
    }

    func handle(value: Value, logger: Logger) async {
        await http.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with ``GuardedHTTPChannel``.
    static func guarded() -> HTTPServerBuilder {
        .init { responder in GuardedHTTPChannel(http: HTTP1Channel(responder: responder, configuration: .init())) }
    }
}
