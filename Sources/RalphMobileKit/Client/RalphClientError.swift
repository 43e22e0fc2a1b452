import RalphAPI

/// Everything that can go wrong talking to a Ralph Mobile server, typed from the server's
/// `{"error": "<prefix>: <detail>"}` bodies so screens can react (ask for a key, show "not found", …).
public enum RalphClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not an http(s) URL with a host (no query or fragment); thrown before any request.
    case invalidURL(String)
    /// No connection (refused, unknown host, network down).
    case unreachable(String)
    /// No answer within ``RalphClient/timeout``, or no connection within the HTTP client's connect timeout.
    case timedOut
    /// 401: no key or a wrong one.
    case unauthorized
    /// 403: the key's role is not enough (`needs operator`) or the action is not allowed.
    case forbidden(String)
    /// `session_not_found:` — no run with this id.
    case sessionNotFound(String)
    /// `config_not_found:` — no such config file (or config name).
    case configNotFound(String)
    /// `prompt_not_found:` — no such prompt file.
    case promptNotFound(String)
    /// Any other 404 (`not_found:`, `task_not_found:`, `loop_not_found:`, `skill_not_found:`, …).
    case notFound(prefix: String, detail: String)
    /// `invalid_path:` — a path outside the workspace roots, or otherwise refused.
    case invalidPath(String)
    /// `invalid_topic:` — an event topic that breaks the topic rule.
    case invalidTopic(String)
    /// `invalid_body:` — the request body was refused (each problem in the detail); also a body this client could not encode.
    case invalidBody(String)
    /// `invalid_parameter:` — a query parameter was refused.
    case invalidParameter(String)
    /// `invalid_config:` — a ralph config that does not validate.
    case invalidConfig(String)
    /// 409 `not_running:` — the run is over (or not running yet).
    case notRunning(String)
    /// 409 `conflict:` — ambiguous id, already paused, still starting, …
    case conflict(String)
    /// `failed_to_spawn:` — ralph exited before its run began (its exit status and last lines of output).
    case failedToSpawn(String)
    /// 503 `host_offline:` — in a cluster, the run or conversation belongs to a host that is offline (or went offline
    /// while carrying the request out): nothing can reach it until that host is back.
    case hostOffline(String)
    /// 404 `action_token_unknown:` — a notification action's token this server never issued (or its device was removed).
    case actionTokenUnknown(String)
    /// 409 `action_token_used:` — the notification's button was pressed already; it works once.
    case actionTokenUsed(String)
    /// 410 `action_token_expired:` — the notification's button is too old (or the thing stopped waiting).
    case actionTokenExpired(String)
    /// Any other error status.
    case server(status: Int, message: String)
    /// The answer was not what the contract says.
    case decoding(String)

    /// A sentence for a person, with the server's detail.
    public var description: String {
        switch self {
        case .invalidURL(let url): "'\(url)' is not a server URL (use http://host:port)"
        case .unreachable(let why): "cannot reach the server: \(why)"
        case .timedOut: "the server did not answer in time"
        case .unauthorized: "the server refused the API key (missing or wrong)"
        case .forbidden(let why): "not allowed: \(why)"
        case .sessionNotFound(let why): "no such session: \(why)"
        case .configNotFound(let path): "config not found: \(path)"
        case .promptNotFound(let path): "prompt not found: \(path)"
        case .notFound(let prefix, let detail): "\(prefix.replacingOccurrences(of: "_", with: " ")): \(detail)"
        case .invalidPath(let why): "invalid path: \(why)"
        case .invalidTopic(let why): "invalid topic: \(why)"
        case .invalidBody(let why): "invalid request: \(why)"
        case .invalidParameter(let why): "invalid parameter: \(why)"
        case .invalidConfig(let why): "invalid ralph config: \(why)"
        case .notRunning(let why): "not running: \(why)"
        case .conflict(let why): "conflict: \(why)"
        case .failedToSpawn(let why): "could not start ralph: \(why)"
        case .hostOffline(let why): "host offline: \(why)"
        case .actionTokenUnknown(let why): "this notification's action is unknown to the server: \(why)"
        case .actionTokenUsed(let why): "this notification's action was used already: \(why)"
        case .actionTokenExpired(let why): "this notification's action expired: \(why)"
        case .server(let status, let message): "server error \(status): \(message)"
        case .decoding(let why): "unexpected answer from the server: \(why)"
        }
    }

    /// The error a status code and body stand for.
    public static func from(status: Int, body: ErrorResponse?) -> RalphClientError {
        let detail = body?.detail ?? body?.error ?? ""
        let prefix = body?.prefix
        switch (status, prefix) {
        case (401, _): return .unauthorized
        case (403, _): return .forbidden(detail)
        case (_, .sessionNotFound?): return .sessionNotFound(detail)
        case (_, .configNotFound?): return .configNotFound(detail)
        case (_, .promptNotFound?): return .promptNotFound(detail)
        case (_, .invalidPath?): return .invalidPath(detail)
        case (_, .invalidTopic?): return .invalidTopic(detail)
        case (_, .invalidBody?): return .invalidBody(detail)
        case (_, .invalidParameter?): return .invalidParameter(detail)
        case (_, .invalidConfig?): return .invalidConfig(detail)
        case (_, .notRunning?): return .notRunning(detail)
        case (_, .conflict?): return .conflict(detail)
        case (_, .failedToSpawn?): return .failedToSpawn(detail)
        case (_, .hostOffline?): return .hostOffline(detail)
        case (_, .actionTokenUnknown?): return .actionTokenUnknown(detail)
        case (_, .actionTokenUsed?): return .actionTokenUsed(detail)
        case (_, .actionTokenExpired?): return .actionTokenExpired(detail)
        case (404, let prefix?): return .notFound(prefix: prefix.rawValue, detail: detail)
        case (404, nil): return .notFound(prefix: "not_found", detail: detail)
        default: return .server(status: status, message: body?.error ?? "HTTP \(status)")
        }
    }

    /// Whether retrying later might help (as opposed to a wrong key, a missing session, bad input).
    public var isTransient: Bool {
        switch self {
        case .unreachable, .timedOut, .hostOffline: true
        case .server(let status, _): status >= 500 || status == 429
        case .conflict: true
        default: false
        }
    }
}
