import Foundation
import Hummingbird
import NIOCore
import RalphAPI

/// Who is calling: the role their key grants (admin for everyone on a trusted loopback server).
public struct CallerIdentity: Sendable, Equatable {
    public var role: Role
    /// Id of the key used, nil when trusted without a key.
    public var keyID: String?
}

/// The request context of every route: the caller's address and, once authenticated, identity.
public struct AppRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    public var identity: CallerIdentity?
    /// The request presented the metrics key (`--metrics-key`) on `GET /metrics`: it may read the metrics, and
    /// nothing else (it has no identity, so every other route refuses it).
    public var metricsKeyPresented = false
    /// The event loop of the request's connection (streams write from it; see ``EventLoopExecutor``).
    public let eventLoop: any EventLoop
    /// The request's connection (a stream whose client stopped reading is closed through it; see ``StreamWatchdog``).
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
        self.eventLoop = source.channel.eventLoop
        self.channel = source.channel
        self.identity = nil
    }

    public var requestDecoder: APIRequestDecoder { APIRequestDecoder() }

    /// Throws `403 forbidden: needs <role>` unless the caller's role includes `role`.
    public func require(_ role: Role) throws(APIError) {
        guard let identity else { throw .unauthorized }
        guard identity.role.includes(role) else { throw .forbidden(needs: role) }
    }
}

/// Decodes JSON bodies, turning any failure into `400 invalid_body: …` with the decoder's reason, and a body over the
/// upload limit into `413 payload_too_large: …`.
public struct APIRequestDecoder: RequestDecoder {
    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw BodyLimitMiddleware.tooLarge(limit: context.maxUploadSize)
        }
        do {
            return try WireJSON.decode(T.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw APIError.invalidBody(Self.describe(error))
        } catch {
            throw APIError.invalidBody("the body is not valid JSON")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.isEmpty ? "body" : codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing field '\(path(context.codingPath + [key]))'"
        case .typeMismatch(let type, let context): return "'\(path(context.codingPath))' must be \(type)"
        case .valueNotFound(let type, let context): return "'\(path(context.codingPath))' must be \(type), not null"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "the body is not valid JSON" }
            // Our own types say what is wrong (e.g. the modes allowed); keep that, not the decoder's internals.
            let why = context.debugDescription
            return why.isEmpty || why.contains("Cannot initialize") || why.contains("underlying")
                ? "'\(path(context.codingPath))' is invalid" : "'\(path(context.codingPath))' is invalid: \(why)"
        @unknown default: return "the body could not be decoded"
        }
    }
}
