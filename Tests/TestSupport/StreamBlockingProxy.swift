import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// An HTTP proxy in front of a real server that passes plain requests through but refuses every event stream with
/// `502`, as some corporate proxies do. Clients must fall back to polling behind it.
public final class StreamBlockingProxy: Sendable {
    /// Which plain GETs the proxy passes through; the rest it does not know (`404`).
    public enum Forwarding: Sendable {
        /// The session routes and the health checks only.
        case sessions
        /// Every GET (conversations included).
        case everything

        var paths: [RouterPath] {
            switch self {
            case .sessions: ["/api/events", "/api/sessions/**", "/api/sessions", "/api/health", "/health"]
            case .everything: ["/**"]
            }
        }
    }

    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    public var base: String { "http://127.0.0.1:\(port)" }

    public static func start(upstream: String, forwarding: Forwarding = .sessions) async throws -> StreamBlockingProxy {
        let router = Router()
        for path in forwarding.paths {
            router.get(path) { request, _ in try await forward(request, to: upstream) }
        }
        var logger = Logger(label: "test.proxy")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestFailure("proxy did not start") }
        return StreamBlockingProxy(port: port, group: group, task: task)
    }

    private init(port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.group = group
        self.task = task
    }

    /// Event streams (the global one and any `…/events`) are refused; everything else is fetched from the server and
    /// passed back.
    static func forward(_ request: Request, to upstream: String) async throws -> Response {
        if request.uri.path.hasSuffix("/events") {
            return Response(status: .badGateway, body: .init(byteBuffer: ByteBuffer(string: #"{"error":"proxy: event streams are not allowed"}"#)))
        }
        var outgoing = HTTPClientRequest(url: upstream + request.uri.description)
        for field in request.headers where field.name == .accept || field.name.rawName.lowercased() == "x-api-key" {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        let response = try await HTTPClient.shared.execute(outgoing, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 64 << 20)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .init(code: Int(response.status.code)), headers: headers, body: .init(byteBuffer: body))
    }

    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
