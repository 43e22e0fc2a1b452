import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RalphAPI

/// Talks to one Ralph Mobile server: every route of the contract, typed answers and typed errors.
///
/// Built on AsyncHTTPClient (it runs on Linux and Apple platforms; `URLSession.bytes` does not exist on Linux).
/// Sends the key as `X-Api-Key`. Every request has a timeout for the answer's head; streams are not cut by it.
public struct RalphClient: Sendable {
    /// `http(s)://host:port`, without a trailing slash.
    public let baseURL: String
    public let apiKey: String?
    /// How long to wait for a response to start.
    public var timeout: Duration = .seconds(15)
    let http: HTTPClient

    /// - Throws: ``RalphClientError/invalidURL(_:)`` unless `baseURL` is an http(s) URL with a host.
    public init(baseURL: String, apiKey: String? = nil, http: HTTPClient = RalphClient.sharedHTTPClient) throws(RalphClientError) {
        self.baseURL = try Self.normalize(baseURL)
        self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 }
        self.http = http
    }

    /// The HTTP client every ``RalphClient`` shares unless given another. Unlike `HTTPClient.shared` it does not retry
    /// a refused connection until the request's deadline: a server that is down is reported at once (the event
    /// stream has its own backoff), and a connection that cannot be made in 5 s fails.
    public static let sharedHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Checks and normalises a server URL: http or https, a host, no query or fragment; trailing slashes dropped.
    public static func normalize(_ text: String) throws(RalphClientError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil
        else { throw .invalidURL(text) }
        var result = trimmed
        while result.hasSuffix("/") { result.removeLast() }
        return result
    }

    // MARK: - Requests

    /// Percent-encodes one path component.
    public static func component(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? text
    }

    func url(_ path: String, query: [(String, String)] = []) -> String {
        guard !query.isEmpty else { return baseURL + path }
        let pairs = query.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+?#"))) ?? $0.1)" }
        return baseURL + path + (path.contains("?") ? "&" : "?") + pairs.joined(separator: "&")
    }

    func request(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], body: Data? = nil, headers: [(String, String)] = []) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url(path, query: query))
        request.method = method
        request.headers.add(name: "Accept", value: "application/json")
        if let apiKey { request.headers.add(name: "X-Api-Key", value: apiKey) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        return request
    }

    /// Sends a request and returns the response head (the body is left to the caller).
    func execute(_ request: HTTPClientRequest) async throws(RalphClientError) -> HTTPClientResponse {
        do {
            return try await http.execute(request, timeout: TimeAmount.nanoseconds(Int64(timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .connectTimeout || error == .readTimeout {
            throw .timedOut
        } catch {
            throw .unreachable(Self.describe(error))
        }
    }

    /// Sends a request and returns the body of a 2xx answer, or the typed error of any other.
    func data(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], body: Data? = nil) async throws(RalphClientError) -> (status: Int, body: Data) {
        let response = try await execute(request(method, path, query: query, body: body))
        let bytes: ByteBuffer
        do {
            bytes = try await response.body.collect(upTo: 64 << 20)
        } catch {
            throw .unreachable("the answer was cut off: \(Self.describe(error))")
        }
        let data = Data(bytes.readableBytesView)
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            throw RalphClientError.from(status: status, body: try? WireJSON.decode(ErrorResponse.self, from: data))
        }
        return (status, data)
    }

    func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws(RalphClientError) -> T {
        do {
            return try WireJSON.decode(T.self, from: data)
        } catch {
            throw .decoding("\(T.self): \(error)")
        }
    }

    func get<T: Decodable>(_ path: String, query: [(String, String)] = [], as type: T.Type = T.self) async throws(RalphClientError) -> T {
        try decode(T.self, try await data(.GET, path, query: query).body)
    }

    func send<T: Decodable>(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], json: some Encodable, as type: T.Type = T.self) async throws(RalphClientError) -> T {
        let body: Data
        do {
            body = try WireJSON.encode(json)
        } catch {
            throw .invalidBody("cannot encode the request: \(error)")
        }
        return try decode(T.self, try await data(method, path, query: query, body: body).body)
    }

    func send<T: Decodable>(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], as type: T.Type = T.self) async throws(RalphClientError) -> T {
        try decode(T.self, try await data(method, path, query: query).body)
    }

    static func describe(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        return text
    }

    // MARK: - Health

    /// `GET /health`: true when the server answers `200 OK`.
    public func isReachable() async -> Bool {
        guard let response = try? await execute(request(.GET, "/health")) else { return false }
        _ = try? await response.body.collect(upTo: 1024)
        return response.status == .ok
    }

    public func health() async throws(RalphClientError) -> HealthResponse { try await get("/api/health") }

    // MARK: - Sessions

    /// Every run the server lists, newest first; with `host` (a host's name or id) only the runs of that host of a
    /// cluster (a server on its own marks no run with a host, so any `host` gives none there: see ``hosts()``).
    public func sessions(host: String? = nil) async throws(RalphClientError) -> [Session] {
        try await get("/api/sessions", query: host.map { [("host", $0)] } ?? [])
    }
    public func status(_ id: String) async throws(RalphClientError) -> Session { try await get("/api/sessions/\(Self.component(id))/status") }
    public func detail(_ id: String) async throws(RalphClientError) -> SessionDetail { try await get("/api/sessions/\(Self.component(id))") }
    public func iterations(_ id: String) async throws(RalphClientError) -> IterationsResponse { try await get("/api/sessions/\(Self.component(id))/iterations") }
    public func scratchpad(_ id: String) async throws(RalphClientError) -> ScratchpadResponse { try await get("/api/sessions/\(Self.component(id))/scratchpad") }

    // MARK: - Steering

    public func start(_ request: StartSessionRequest) async throws(RalphClientError) -> StartSessionResponse { try await send(.POST, "/api/sessions", json: request) }
    /// Stops a run: gracefully (ralph ends at its next iteration boundary; answers `stopping`) unless `force`, which
    /// signals the process group (a second stop while a graceful one is pending forces too).
    public func stop(_ id: String, force: Bool = false) async throws(RalphClientError) -> StopSessionResponse {
        try await send(.DELETE, "/api/sessions/\(Self.component(id))" + (force ? "?force=true" : ""))
    }
    public func pause(_ id: String) async throws(RalphClientError) -> ControlResponse { try await send(.POST, "/api/sessions/\(Self.component(id))/pause") }
    public func resume(_ id: String) async throws(RalphClientError) -> ControlResponse { try await send(.POST, "/api/sessions/\(Self.component(id))/resume") }
    public func emit(_ id: String, topic: String, payload: JSONValue? = nil) async throws(RalphClientError) -> EmitResponse {
        try await send(.POST, "/api/sessions/\(Self.component(id))/emit", json: EmitRequest(topic: topic, payload: payload))
    }
    /// Guidance for the next iteration, or with `urgent` a steer for the current one (RPC runs started by the server;
    /// discovered runs only when the server allows it, else ``RalphClientError`` with the server's 409 words).
    public func steer(_ id: String, message: String, urgent: Bool = false) async throws(RalphClientError) -> SteerResponse {
        try await send(.POST, "/api/sessions/\(Self.component(id))/steer", json: SteerRequest(message: message, urgent: urgent ? true : nil))
    }

    /// ralph's output log of a run started by the server, as it comes (`follow`), in chunks.
    public func log(_ id: String, follow: Bool = true, offset: Int = 0) async throws(RalphClientError) -> AsyncThrowingStream<ByteBuffer, any Error> {
        let response = try await execute(request(.GET, "/api/sessions/\(Self.component(id))/log", query: [("follow", follow ? "true" : "false"), ("offset", String(offset))]))
        guard response.status == .ok else {
            let data = (try? await response.body.collect(upTo: 1 << 20)).map { Data($0.readableBytesView) } ?? Data()
            throw RalphClientError.from(status: Int(response.status.code), body: try? WireJSON.decode(ErrorResponse.self, from: data))
        }
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await chunk in response.body { continuation.yield(chunk) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: - RObot

    public func questions() async throws(RalphClientError) -> [PendingQuestion] { try await get("/api/robot/questions", as: RobotQuestionsResponse.self).questions }
    public func answer(questionID: String, text: String) async throws(RalphClientError) -> RobotResponseAck {
        try await send(.POST, "/api/robot/response", json: RobotResponseRequest(questionId: questionID, responseText: text))
    }
    public func guide(sessionID: String?, text: String) async throws(RalphClientError) -> RobotGuidanceAck {
        try await send(.POST, "/api/robot/guidance", json: RobotGuidanceRequest(sessionId: sessionID, guidanceText: text))
    }

    // MARK: - Library and workspace (`workspace` selects one; nil is the server's first root)

    func workspaceQuery(_ workspace: String?) -> [(String, String)] { workspace.map { [("workspace", $0)] } ?? [] }

    public func configs(workspace: String? = nil) async throws(RalphClientError) -> [ConfigItem] {
        try await get("/api/configs", query: workspaceQuery(workspace), as: ConfigsResponse.self).configs
    }
    public func config(_ path: String, workspace: String? = nil) async throws(RalphClientError) -> FileContentResponse {
        try await get("/api/configs/" + path.split(separator: "/").map { Self.component(String($0)) }.joined(separator: "/"), query: workspaceQuery(workspace))
    }
    public func prompts(workspace: String? = nil) async throws(RalphClientError) -> [PromptItem] {
        try await get("/api/prompts", query: workspaceQuery(workspace), as: PromptsResponse.self).prompts
    }
    public func prompt(_ path: String, workspace: String? = nil) async throws(RalphClientError) -> FileContentResponse {
        try await get("/api/prompts/" + path.split(separator: "/").map { Self.component(String($0)) }.joined(separator: "/"), query: workspaceQuery(workspace))
    }
    public func presets(workspace: String? = nil) async throws(RalphClientError) -> [PresetItem] {
        try await get("/api/presets", query: workspaceQuery(workspace), as: PresetsResponse.self).presets
    }
    public func hats(workspace: String? = nil) async throws(RalphClientError) -> [HatItem] {
        try await get("/api/hats", query: workspaceQuery(workspace), as: HatsResponse.self).hats
    }
    public func skills(workspace: String? = nil) async throws(RalphClientError) -> [SkillItem] {
        try await get("/api/skills", query: workspaceQuery(workspace), as: SkillsResponse.self).skills
    }
    public func skill(_ name: String, workspace: String? = nil) async throws(RalphClientError) -> SkillItem {
        try await get("/api/skills/\(Self.component(name))", query: workspaceQuery(workspace))
    }
    public func loadSkill(_ name: String, workspace: String? = nil) async throws(RalphClientError) -> SkillContentResponse {
        try await send(.POST, "/api/skills/\(Self.component(name))/load", query: workspaceQuery(workspace))
    }
    public func exportConfig(workspace: String? = nil) async throws(RalphClientError) -> ConfigExportResponse {
        try await send(.POST, "/api/config/export", query: workspaceQuery(workspace))
    }
    public func importConfig(_ content: String, workspace: String? = nil) async throws(RalphClientError) -> ConfigImportResponse {
        try await send(.POST, "/api/config/import", query: workspaceQuery(workspace), json: ConfigImportRequest(content: content))
    }
    public func memories(workspace: String? = nil) async throws(RalphClientError) -> MemoriesContent {
        try await get("/api/memories", query: workspaceQuery(workspace))
    }
    public func setMemories(_ content: String, workspace: String? = nil) async throws(RalphClientError) -> MemoriesContent {
        try await send(.PUT, "/api/memories", query: workspaceQuery(workspace), json: MemoriesUpdate(content: content))
    }
    public func exportMemories(workspace: String? = nil) async throws(RalphClientError) -> MemoriesExport {
        try await send(.POST, "/api/memories/export", query: workspaceQuery(workspace))
    }
    public func tasks(status: String? = nil, workspace: String? = nil) async throws(RalphClientError) -> TasksResponse {
        try await get("/api/tasks", query: workspaceQuery(workspace) + (status.map { [("status", $0)] } ?? []))
    }
    public func addTask(_ request: CreateTaskRequest, workspace: String? = nil) async throws(RalphClientError) -> TaskItem {
        try await send(.POST, "/api/tasks", query: workspaceQuery(workspace), json: request)
    }
    public func setTaskStatus(_ id: String, status: String, workspace: String? = nil) async throws(RalphClientError) -> TaskItem {
        try await send(.PUT, "/api/tasks/\(Self.component(id))", query: workspaceQuery(workspace), json: UpdateTaskRequest(status: status))
    }
    public func loops(workspace: String? = nil) async throws(RalphClientError) -> [LoopInfo] {
        try await get("/api/loops", query: workspaceQuery(workspace), as: LoopsResponse.self).loops
    }
    public func loop(_ id: String, workspace: String? = nil) async throws(RalphClientError) -> LoopInfo {
        try await get("/api/loops/\(Self.component(id))", query: workspaceQuery(workspace))
    }
    public func spawnLoop(_ request: SpawnLoopRequest, workspace: String? = nil) async throws(RalphClientError) -> SpawnLoopResponse {
        try await send(.POST, "/api/loops", query: workspaceQuery(workspace), json: request)
    }
    public func mergeLoop(_ id: String, workspace: String? = nil) async throws(RalphClientError) -> OperationResponse {
        try await send(.POST, "/api/loops/\(Self.component(id))/merge", query: workspaceQuery(workspace))
    }
    public func discardLoop(_ id: String, workspace: String? = nil) async throws(RalphClientError) -> OperationResponse {
        try await send(.POST, "/api/loops/\(Self.component(id))/discard", query: workspaceQuery(workspace))
    }
    public func mergeQueue(workspace: String? = nil) async throws(RalphClientError) -> MergeQueueResponse {
        try await get("/api/merge-queue", query: workspaceQuery(workspace))
    }

    // MARK: - Host and keys

    public func hostMetrics() async throws(RalphClientError) -> HostMetrics { try await get("/api/host/metrics") }
    public func hostProcesses() async throws(RalphClientError) -> [HostProcess] { try await get("/api/host/processes", as: HostProcessesResponse.self).processes }
    public func keys() async throws(RalphClientError) -> [APIKeyInfo] { try await get("/api/keys", as: APIKeyList.self).keys }
    public func createKey(role: Role, name: String?) async throws(RalphClientError) -> CreatedAPIKey {
        try await send(.POST, "/api/keys", json: CreateAPIKeyRequest(role: role, name: name))
    }
    public func revokeKey(_ id: String) async throws(RalphClientError) {
        _ = try await data(.DELETE, "/api/keys/\(Self.component(id))")
    }
}
