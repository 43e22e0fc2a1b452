import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RalphAPI
import Synchronization

/// The routes the router knows, so an unknown method on a known path can be answered with 405 instead of 404.
final class RouteTable: Sendable {
    private let routes = Mutex<[(path: RouterPath, method: String)]>([])

    func record(_ descriptions: [(RouterPath, String)]) {
        routes.withLock { $0 = descriptions.map { (path: $0.0, method: $0.1) } }
    }

    /// Methods registered for paths matching `path`.
    func allowedMethods(for path: String) -> [String] {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        return routes.withLock { routes in
            Array(Set(routes.filter { Self.matches($0.path, components) }.map(\.method))).sorted()
        }
    }

    static func matches(_ route: RouterPath, _ components: [Substring]) -> Bool {
        var i = 0
        for element in route.components {
            if element.description == "**" { return true }
            guard i < components.count, element ~= components[i] else { return false }
            i += 1
        }
        return i == components.count
    }
}

/// Turns every error into the contract's JSON error body: route errors, unknown routes (404), wrong methods (405),
/// bodies over the limit (413), framework errors and anything unexpected (500, logged).
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return error.response()
        } catch let error as HTTPError {
            return map(error, request: request).response()
        } catch is NIOTooManyBytesError {
            return BodyLimitMiddleware.tooLarge(limit: context.maxUploadSize).response()
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            context.logger.error("unhandled error", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            return APIError.internalError("unexpected server error").response()
        }
    }

    func map(_ error: HTTPError, request: Request) -> APIError {
        switch error.status {
        case .notFound:
            let allowed = routes.allowedMethods(for: request.uri.path)
            if !allowed.isEmpty, !allowed.contains(request.method.rawValue) {
                return .methodNotAllowed(method: request.method.rawValue, path: request.uri.path, allowed: allowed)
            }
            return .notFound("no route \(request.method.rawValue) \(request.uri.path)")
        case .contentTooLarge:
            return .payloadTooLarge(error.body ?? "the body is too large")
        case .badRequest:
            return .invalidBody(error.body ?? "bad request")
        case .unsupportedMediaType:
            return .invalidBody(error.body ?? "unsupported content type")
        default:
            return .internalError(error.body ?? "\(error.status.code) \(error.status.reasonPhrase)")
        }
    }
}
