import Foundation
import NIOHTTP1
import Synchronization

/// The original RalphMobile iOS app's `RalphAPIClient` (reference §8.1), modelled from its behaviour: requests built as
/// it builds them (`X-Api-Key`; GET with `Accept: application/json`; a body only where it sends one, as JSON), its
/// status mapping (`executeRequest`) and a plain `JSONDecoder` over the app's own model shapes (``ClientModels``).
/// Every call is recorded by its route, so a test can tell which of the app's calls it replayed.
final class OriginalAppClient: Sendable {
    /// What `executeRequest` turns a response into when it is not a decoded 2xx.
    enum Failure: Error, Equatable {
        case unauthorized
        case invalidPath(String)
        case invalidTopic(String)
        case configNotFound(String)
        case promptNotFound(String)
        /// Any other 404, unknown routes included.
        case sessionNotFound
        case failedToSpawn(String)
        case serverError(Int, String)
        case decoding(String)
    }

    let base: String
    let key: String?
    /// `METHOD /route/{param}` of every call made, in order.
    let calls = Mutex<[String]>([])

    init(base: String, key: String?) {
        self.base = base
        self.key = key
    }

    /// One call: `route` names it in ``calls`` (`GET /api/sessions/{id}/status`), `path` is what is requested.
    func call<T: Decodable>(
        _ method: HTTPMethod, _ route: String, _ path: String, body: [String: Any]? = nil, as type: T.Type
    ) async throws -> T {
        calls.withLock { $0.append("\(method.rawValue) \(route)") }
        var headers: [(String, String)] = key.map { [("X-Api-Key", $0)] } ?? []
        if method == .GET { headers.append(("Accept", "application/json")) }
        let encoded = try body.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        let result = try await HTTP.request(base + path, method: method, headers: headers, body: encoded)
        let error = (try? JSONDecoder().decode(ClientModels.ErrorBody.self, from: result.body))?.error ?? ""
        switch result.status {
        case 200..<300:
            do {
                return try JSONDecoder().decode(T.self, from: result.body)
            } catch {
                throw Failure.decoding("\(route): \(error) in \(result.text)")
            }
        case 401: throw Failure.unauthorized
        case 400 where error.hasPrefix("invalid_path:"): throw Failure.invalidPath(error)
        case 400 where error.hasPrefix("invalid_topic:"): throw Failure.invalidTopic(error)
        case 404 where error.hasPrefix("config_not_found:"): throw Failure.configNotFound(error)
        case 404 where error.hasPrefix("prompt_not_found:"): throw Failure.promptNotFound(error)
        case 404: throw Failure.sessionNotFound
        case 500 where error.hasPrefix("failed_to_spawn:"): throw Failure.failedToSpawn(error)
        default: throw Failure.serverError(result.status, result.text)
        }
    }

    /// `GET /health`: the app looks at the status code only.
    func health() async throws -> Int {
        calls.withLock { $0.append("GET /health") }
        return try await HTTP.get(base + "/health").status
    }

    /// `createSession(config, prompt, directory)`: the POST, then at once the new run's `/status`.
    func createSession(config: String, prompt: String, directory: String) async throws -> ClientModels.Session {
        var body = ["config_path": config, "prompt_path": prompt]
        if !directory.isEmpty { body["working_dir"] = directory }
        let started = try await call(.POST, "/api/sessions", "/api/sessions", body: body, as: ClientModels.Started.self)
        return try await call(.GET, "/api/sessions/{id}/status", "/api/sessions/\(started.id)/status", as: ClientModels.Session.self)
    }

    /// The session screen's stream client (it GETs `/status`, then streams), its calls recorded.
    func sessionScreen(_ id: String) -> OriginalAppStream {
        calls.withLock { $0 += ["GET /api/sessions/{id}/status", "GET /api/sessions/{id}/events"] }
        return OriginalAppStream(base: base, sessionID: id, key: key)
    }
}

extension ClientModels {
    /// `{"error": …}`, read by the app to branch on prefixes.
    struct ErrorBody: Decodable { let error: String }
}
