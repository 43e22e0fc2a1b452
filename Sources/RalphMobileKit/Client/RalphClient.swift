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
    /// The key sent as `X-Api-Key`; nil (an empty key becomes nil) sends none.
    public let apiKey: String?
    /// How long to wait for a response to start.
    public var timeout: Duration = .seconds(15)
    let http: HTTPClient

    /// A client for the server at `baseURL` (normalised by ``normalize(_:)``), sending `apiKey` if given and not empty.
    /// Nothing is sent until the first call.
    ///
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

    /// `GET /api/health`: the server's version, protocol, capabilities, whether it asks for keys, and its chat agents.
    public func health() async throws(RalphClientError) -> HealthResponse { try await get("/api/health") }

    // MARK: - Sessions

    /// Every run the server lists, newest first; with `host` (a host's name or id) only the runs of that host of a
    /// cluster (a server on its own marks no run with a host, so any `host` gives none there: see ``hosts()``).
    public func sessions(host: String? = nil) async throws(RalphClientError) -> [Session] {
        try await get("/api/sessions", query: host.map { [("host", $0)] } ?? [])
    }
    /// `GET /api/sessions/{id}/status`: one run, as the list shows it.
    public func status(_ id: String) async throws(RalphClientError) -> Session { try await get("/api/sessions/\(Self.component(id))/status") }
    /// `GET /api/sessions/{id}`: the run with everything a detail screen shows (hats, iterations, backpressure, tokens,
    /// recent events, pending question …).
    public func detail(_ id: String) async throws(RalphClientError) -> SessionDetail { try await get("/api/sessions/\(Self.component(id))") }
    /// `GET /api/sessions/{id}/iterations`: each iteration of the run with its hat, start, duration and event count.
    public func iterations(_ id: String) async throws(RalphClientError) -> IterationsResponse { try await get("/api/sessions/\(Self.component(id))/iterations") }
    /// `GET /api/sessions/{id}/scratchpad`: the run's `.ralph/agent/scratchpad.md`.
    public func scratchpad(_ id: String) async throws(RalphClientError) -> ScratchpadResponse { try await get("/api/sessions/\(Self.component(id))/scratchpad") }

    // MARK: - Steering

    /// `POST /api/sessions` (admin): starts `ralph run` with a config and a prompt. A missing file is
    /// ``RalphClientError/configNotFound(_:)`` or ``RalphClientError/promptNotFound(_:)``, a path outside the workspace
    /// roots ``RalphClientError/invalidPath(_:)``, a ralph that exits at once ``RalphClientError/failedToSpawn(_:)``.
    public func start(_ request: StartSessionRequest) async throws(RalphClientError) -> StartSessionResponse { try await send(.POST, "/api/sessions", json: request) }
    /// Stops a run: gracefully (ralph ends at its next iteration boundary; answers `stopping`) unless `force`, which
    /// signals the process group (a second stop while a graceful one is pending forces too).
    public func stop(_ id: String, force: Bool = false) async throws(RalphClientError) -> StopSessionResponse {
        try await send(.DELETE, "/api/sessions/\(Self.component(id))" + (force ? "?force=true" : ""))
    }
    /// `POST /api/sessions/{id}/pause` (operator): SIGSTOP to the run's process group.
    public func pause(_ id: String) async throws(RalphClientError) -> ControlResponse { try await send(.POST, "/api/sessions/\(Self.component(id))/pause") }
    /// `POST /api/sessions/{id}/resume` (operator): continues a run paused by the server (SIGCONT), or asks ralph to resume
    /// one a hook suspended. A run that is neither, or died meanwhile, is a 409 error.
    public func resume(_ id: String) async throws(RalphClientError) -> ControlResponse { try await send(.POST, "/api/sessions/\(Self.component(id))/resume") }
    /// `POST /api/sessions/{id}/emit` (operator): appends an event to a live run's events file and returns its id. A bad
    /// topic is ``RalphClientError/invalidTopic(_:)``; check a typed payload first with ``EmitPayload/parse(_:)``.
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

    /// `GET /api/robot/questions`: the `human.interact` questions live runs are waiting on.
    public func questions() async throws(RalphClientError) -> [PendingQuestion] { try await get("/api/robot/questions", as: RobotQuestionsResponse.self).questions }
    /// `POST /api/robot/response` (operator): answers a pending question; one that no longer waits is a not-found error.
    public func answer(questionID: String, text: String) async throws(RalphClientError) -> RobotResponseAck {
        try await send(.POST, "/api/robot/response", json: RobotResponseRequest(questionId: questionID, responseText: text))
    }
    /// `POST /api/robot/guidance` (operator): guidance for a run (nil: the only live one), read at its next iteration.
    public func guide(sessionID: String?, text: String) async throws(RalphClientError) -> RobotGuidanceAck {
        try await send(.POST, "/api/robot/guidance", json: RobotGuidanceRequest(sessionId: sessionID, guidanceText: text))
    }

    // MARK: - Library and workspace (`workspace` selects one; nil is the server's first root)

    func workspaceQuery(_ workspace: String?) -> [(String, String)] { workspace.map { [("workspace", $0)] } ?? [] }

    /// `GET /api/configs`: the workspace's configs (`ralph.yml` and the presets).
    public func configs(workspace: String? = nil) async throws(RalphClientError) -> [ConfigItem] {
        try await get("/api/configs", query: workspaceQuery(workspace), as: ConfigsResponse.self).configs
    }
    /// `GET /api/configs/{path}`: a config's content; unknown is ``RalphClientError/configNotFound(_:)``.
    public func config(_ path: String, workspace: String? = nil) async throws(RalphClientError) -> FileContentResponse {
        try await get("/api/configs/" + path.split(separator: "/").map { Self.component(String($0)) }.joined(separator: "/"), query: workspaceQuery(workspace))
    }
    /// `GET /api/prompts`: the workspace's prompts (`prompts/**/*.md`) with a short preview.
    public func prompts(workspace: String? = nil) async throws(RalphClientError) -> [PromptItem] {
        try await get("/api/prompts", query: workspaceQuery(workspace), as: PromptsResponse.self).prompts
    }
    /// `GET /api/prompts/{path}`: a prompt's content; unknown is ``RalphClientError/promptNotFound(_:)``.
    public func prompt(_ path: String, workspace: String? = nil) async throws(RalphClientError) -> FileContentResponse {
        try await get("/api/prompts/" + path.split(separator: "/").map { Self.component(String($0)) }.joined(separator: "/"), query: workspaceQuery(workspace))
    }
    /// `GET /api/presets`: the workspace's presets (`presets/*.yml`).
    public func presets(workspace: String? = nil) async throws(RalphClientError) -> [PresetItem] {
        try await get("/api/presets", query: workspaceQuery(workspace), as: PresetsResponse.self).presets
    }
    /// `GET /api/hats`: the hats the workspace's presets and `ralph.yml` define (see also ``hats(forSession:)``).
    public func hats(workspace: String? = nil) async throws(RalphClientError) -> [HatItem] {
        try await get("/api/hats", query: workspaceQuery(workspace), as: HatsResponse.self).hats
    }
    /// `GET /api/skills`: the skills ralph would offer in the workspace.
    public func skills(workspace: String? = nil) async throws(RalphClientError) -> [SkillItem] {
        try await get("/api/skills", query: workspaceQuery(workspace), as: SkillsResponse.self).skills
    }
    /// `GET /api/skills/{name}`: one skill; unknown is a ``RalphClientError/notFound(prefix:detail:)``.
    public func skill(_ name: String, workspace: String? = nil) async throws(RalphClientError) -> SkillItem {
        try await get("/api/skills/\(Self.component(name))", query: workspaceQuery(workspace))
    }
    /// `POST /api/skills/{name}/load`: the skill's content as ralph would load it.
    public func loadSkill(_ name: String, workspace: String? = nil) async throws(RalphClientError) -> SkillContentResponse {
        try await send(.POST, "/api/skills/\(Self.component(name))/load", query: workspaceQuery(workspace))
    }
    /// `POST /api/config/export`: the workspace's `ralph.yml` (or `ralph.yaml`).
    public func exportConfig(workspace: String? = nil) async throws(RalphClientError) -> ConfigExportResponse {
        try await send(.POST, "/api/config/export", query: workspaceQuery(workspace))
    }
    /// `POST /api/config/import` (admin): replaces the workspace's `ralph.yml` with `content`, validated first (else
    /// ``RalphClientError/invalidConfig(_:)``); the server keeps the old file as a backup.
    public func importConfig(_ content: String, workspace: String? = nil) async throws(RalphClientError) -> ConfigImportResponse {
        try await send(.POST, "/api/config/import", query: workspaceQuery(workspace), json: ConfigImportRequest(content: content))
    }
    /// `GET /api/memories`: the workspace's `.ralph/agent/memories.md` and its parsed entries.
    public func memories(workspace: String? = nil) async throws(RalphClientError) -> MemoriesContent {
        try await get("/api/memories", query: workspaceQuery(workspace))
    }
    /// `PUT /api/memories` (admin): replaces the memories file with `content`.
    public func setMemories(_ content: String, workspace: String? = nil) async throws(RalphClientError) -> MemoriesContent {
        try await send(.PUT, "/api/memories", query: workspaceQuery(workspace), json: MemoriesUpdate(content: content))
    }
    /// `POST /api/memories/export`: the memories file, for saving elsewhere.
    public func exportMemories(workspace: String? = nil) async throws(RalphClientError) -> MemoriesExport {
        try await send(.POST, "/api/memories/export", query: workspaceQuery(workspace))
    }
    /// `GET /api/tasks`: the workspace's tasks (`.ralph/agent/tasks.jsonl`), only those in `status` when given.
    public func tasks(status: String? = nil, workspace: String? = nil) async throws(RalphClientError) -> TasksResponse {
        try await get("/api/tasks", query: workspaceQuery(workspace) + (status.map { [("status", $0)] } ?? []))
    }
    /// `POST /api/tasks` (admin): adds a task.
    public func addTask(_ request: CreateTaskRequest, workspace: String? = nil) async throws(RalphClientError) -> TaskItem {
        try await send(.POST, "/api/tasks", query: workspaceQuery(workspace), json: request)
    }
    /// `PUT /api/tasks/{id}` (admin): changes a task's status.
    public func setTaskStatus(_ id: String, status: String, workspace: String? = nil) async throws(RalphClientError) -> TaskItem {
        try await send(.PUT, "/api/tasks/\(Self.component(id))", query: workspaceQuery(workspace), json: UpdateTaskRequest(status: status))
    }
    /// `GET /api/loops`: the workspace's live loops (the primary one and those in worktrees).
    public func loops(workspace: String? = nil) async throws(RalphClientError) -> [LoopInfo] {
        try await get("/api/loops", query: workspaceQuery(workspace), as: LoopsResponse.self).loops
    }
    /// `GET /api/loops/{id}`: one live loop.
    public func loop(_ id: String, workspace: String? = nil) async throws(RalphClientError) -> LoopInfo {
        try await get("/api/loops/\(Self.component(id))", query: workspaceQuery(workspace))
    }
    /// `POST /api/loops` (admin): runs ralph with a prompt in the workspace (in a worktree when the primary loop is busy).
    public func spawnLoop(_ request: SpawnLoopRequest, workspace: String? = nil) async throws(RalphClientError) -> SpawnLoopResponse {
        try await send(.POST, "/api/loops", query: workspaceQuery(workspace), json: request)
    }
    /// `POST /api/loops/{id}/merge` (admin): `ralph loops merge <id>`.
    public func mergeLoop(_ id: String, workspace: String? = nil) async throws(RalphClientError) -> OperationResponse {
        try await send(.POST, "/api/loops/\(Self.component(id))/merge", query: workspaceQuery(workspace))
    }
    /// `POST /api/loops/{id}/discard` (admin): `ralph loops discard <id>`.
    public func discardLoop(_ id: String, workspace: String? = nil) async throws(RalphClientError) -> OperationResponse {
        try await send(.POST, "/api/loops/\(Self.component(id))/discard", query: workspaceQuery(workspace))
    }
    /// `GET /api/merge-queue`: the pending and completed merges of the workspace.
    public func mergeQueue(workspace: String? = nil) async throws(RalphClientError) -> MergeQueueResponse {
        try await get("/api/merge-queue", query: workspaceQuery(workspace))
    }

    // MARK: - Host and keys

    /// `GET /api/host/metrics`: the server machine's CPU, memory, disk and network.
    public func hostMetrics() async throws(RalphClientError) -> HostMetrics { try await get("/api/host/metrics") }
    /// `GET /api/host/processes`: the server machine's busiest processes.
    public func hostProcesses() async throws(RalphClientError) -> [HostProcess] { try await get("/api/host/processes", as: HostProcessesResponse.self).processes }
    /// `GET /api/keys` (admin): the API keys, never their secrets.
    public func keys() async throws(RalphClientError) -> [APIKeyInfo] { try await get("/api/keys", as: APIKeyList.self).keys }
    /// `POST /api/keys` (admin): a new key of `role`; its secret is in this answer only.
    public func createKey(role: Role, name: String?) async throws(RalphClientError) -> CreatedAPIKey {
        try await send(.POST, "/api/keys", json: CreateAPIKeyRequest(role: role, name: name))
    }
    /// `DELETE /api/keys/{id}` (admin): revokes a key.
    public func revokeKey(_ id: String) async throws(RalphClientError) {
        _ = try await data(.DELETE, "/api/keys/\(Self.component(id))")
    }
}
