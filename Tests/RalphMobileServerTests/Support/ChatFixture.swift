import Foundation
import Logging
import NIOHTTP1
import RalphAPI

@testable import RalphMobileServer

/// A real server whose conversations run a Claude CLI, with its own workspace, data directory and logs:
///
/// - `.real` (the default): the real Claude Code CLI (``RealClaude``), talking to `fake-anthropic`, the double of the
///   model API, which answers each message as a script (``model(_:)``);
/// - `.fake`: `fake-claude`, the double of the CLI, kept for faults the real CLI cannot be made to show (a crash,
///   garbage on stdout), which logs its argv and every stdin line.
///
/// With `backend: .codex` (and `.real`), its conversations run the real Codex CLI (``RealCodex``) against
/// `fake-openai`, which answers the same scripts; commands run without Codex's sandbox (no bubblewrap in CI), every one
/// still asked for (`untrusted`).
final class ChatFixture: Sendable {
    enum CLI: Sendable { case real, fake }

    /// The agent a conversation of this fixture runs.
    enum Backend: String, Sendable, CaseIterable, CustomStringConvertible {
        case claude, codex
        var description: String { rawValue }
        /// What the agent calls a shell command and a file write.
        var shellTool: String { self == .claude ? "Bash" : "shell" }
        var writeTool: String { self == .claude ? "Write" : "apply_patch" }
    }

    let cli: CLI
    let backend: Backend
    let tmp: TemporaryDirectory
    let root: String
    let data: String
    /// Where fake-claude logs its argv, every stdin line and its exit.
    let log: String
    /// The CLI's home (its `CLAUDE_CONFIG_DIR` is `<home>/.claude` for the real one, the home itself for fake-claude).
    let claudeHome: String
    /// The model API double the real CLI talks to.
    let anthropic: FakeAnthropic?
    /// The Responses API double the real Codex CLI talks to (`backend: .codex`).
    let openAI: FakeOpenAI?
    let server: LiveServer
    let headers: [(String, String)]

    var base: String { server.base }
    var cwd: String { root + "/app" }

    static func start(
        cli: CLI = .real, backend: Backend = .claude, apiKey: String? = nil, logger: Logger = .forTests("test.server"),
        _ configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> ChatFixture {
        try await ChatFixture(cli: cli, backend: backend, apiKey: apiKey, logger: logger, configure)
    }

    private init(
        cli: CLI, backend: Backend, apiKey: String?, logger: Logger, _ configure: @escaping @Sendable (inout ServerConfiguration) -> Void
    ) async throws {
        self.cli = cli
        self.backend = backend
        tmp = TemporaryDirectory("rm-chat")
        root = tmp.subdirectory("root")
        _ = tmp.subdirectory("root/app")
        data = tmp.subdirectory("data")
        log = tmp.path + "/claude.log"
        claudeHome = tmp.subdirectory("claude-home")
        anthropic = cli == .real && backend == .claude ? try await FakeAnthropic.start(log: tmp.path + "/anthropic.log") : nil
        openAI = cli == .real && backend == .codex ? try await FakeOpenAI.start(log: tmp.path + "/openai.log") : nil
        headers = apiKey.map { [("X-Api-Key", $0)] } ?? []
        server = try await Self.server(
            cli: cli, root: root, data: data, log: log, claudeHome: claudeHome, anthropic: anthropic, openAI: openAI, apiKey: apiKey,
            logger: logger, configure
        )
    }

    static func server(
        cli: CLI, root: String, data: String, log: String, claudeHome: String, anthropic: FakeAnthropic?, openAI: FakeOpenAI?, apiKey: String?,
        logger: Logger = .forTests("test.server"), _ configure: @escaping @Sendable (inout ServerConfiguration) -> Void
    ) async throws -> LiveServer {
        let command = cli == .real ? try RealClaude.require() : Products.fakeClaude
        let codex = openAI == nil ? nil : try RealCodex.require()
        return try await LiveServer.start(workspaces: [root], dataDirectory: data, logger: logger) { configuration in
            configuration.claudeCommand = command
            if let anthropic {
                configuration.chatEnvironment = RealClaude.environment(home: claudeHome, apiBase: anthropic.base)
            } else if let openAI, let codex {
                // One home for the agents' environment: Codex keeps its state under it in `.codex`.
                configuration.chatEnvironment = RealCodex.environment(home: claudeHome + "/.codex", apiBase: openAI.base)
                configuration.chatEnvironment["HOME"] = claudeHome
                configuration.codexCommand = codex
                configuration.codexSandbox = "danger-full-access"
            } else {
                configuration.chatEnvironment = ["FAKE_CLAUDE_LOG": log, "CLAUDE_CONFIG_DIR": claudeHome, "FAKE_CLAUDE_DELAY_MS": "1"]
            }
            configuration.apiKey = apiKey
            configure(&configuration)
        }
    }

    /// A server started again on the same data directory (a restart), sharing this fixture's files and model API.
    func restarted(_ configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in }) async throws -> LiveServer {
        try await Self.server(
            cli: cli, root: root, data: data, log: log, claudeHome: claudeHome, anthropic: anthropic, openAI: openAI, apiKey: headers.first?.1,
            configure
        )
    }

    func stop() async {
        await server.stop()
        await anthropic?.stop()
        await openAI?.stop()
    }

    // MARK: - Requests

    func request(_ method: HTTPMethod, _ path: String, _ body: String? = nil, base: String? = nil, headers extra: [(String, String)]? = nil) async throws -> HTTPResult {
        try await HTTP.request((base ?? self.base) + path, method: method, headers: extra ?? headers, body: body)
    }

    func json(_ value: some Encodable) -> String {
        String(decoding: try! WireJSON.encode(value), as: UTF8.self)
    }

    func create(cwd: String = "app", title: String? = nil, base: String? = nil) async throws -> Conversation {
        let body = CreateConversationRequest(title: title, cwd: cwd, backend: backend == .codex ? "codex" : nil)
        let response = try await request(.POST, "/api/conversations", json(body), base: base)
        guard response.status == 201 else { throw TestFailure("create: \(response.status) \(response.text)") }
        return try response.json(Conversation.self)
    }

    @discardableResult
    func send(_ id: String, _ text: String, mode: SendMode? = nil, base: String? = nil) async throws -> SendMessageResponse {
        let response = try await request(.POST, "/api/conversations/\(id)/messages", json(SendMessageRequest(text: text, mode: mode)), base: base)
        guard response.status == 202 else { throw TestFailure("send: \(response.status) \(response.text)") }
        return try response.json(SendMessageResponse.self)
    }

    func events(_ id: String, after: Int? = 0, base: String? = nil) async throws -> SSETestClient {
        var headers = self.headers
        if let after { headers.append(("Last-Event-ID", String(after))) }
        return try await SSETestClient.connect((base ?? self.base) + "/api/conversations/\(id)/events", headers: headers)
    }

    /// A new conversation with its event stream open; with `firstTurn`, that message sent and its turn complete, the
    /// state most fault tests start from.
    func newConversation(firstTurn: String? = nil, timeout: Double = 10) async throws -> (Conversation, SSETestClient) {
        let conversation = try await create()
        let stream = try await events(conversation.id)
        if let firstTurn {
            try await send(conversation.id, firstTurn)
            _ = try await stream.messages(until: "complete", timeout: timeout)
        }
        return (conversation, stream)
    }

    func pendingApprovals(_ conversation: String? = nil) async throws -> [Approval] {
        let query = conversation.map { "&conversation=\($0)" } ?? ""
        return try await request(.GET, "/api/approvals?state=pending" + query).json(ApprovalList.self).approvals
    }

    // MARK: - The CLI double's log

    /// Every JSON line fake-claude logged.
    func logEntries() -> [JSONObject] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { (try? JSONParser.parse(String($0)))?.objectValue }
    }

    /// The stdin lines the server wrote to the CLI, in order.
    func stdinLines() -> [JSONObject] {
        logEntries().filter { $0["event"] == "stdin" }.compactMap { $0["line"]?.objectValue }
    }

    /// The `control_response` lines sent to the CLI.
    func controlResponses() -> [JSONObject] {
        stdinLines().filter { $0["type"] == "control_response" }
    }

    /// fake-claude's starts for conversations (not the server asking it for its version and help).
    func starts() -> [JSONObject] {
        logEntries().filter { $0["event"] == "start" && !strings($0["argv"]).contains("--version") && !strings($0["argv"]).contains("--help") }
    }

    // MARK: - The real CLI

    /// The pids of this fixture's real CLI processes running now: found in /proc by their executable and a working
    /// directory in this fixture's workspace.
    func agentPIDs(_ backend: Backend = .claude) -> [Int32] {
        guard let path = backend == .claude ? RealClaude.path : RealCodex.path else { return [] }
        let target = (path as NSString).resolvingSymlinksInPath
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            let files = FileManager.default
            return (try? files.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == target
                && (try? files.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd"))?.hasPrefix(tmp.path + "/") == true
        }.sorted()
    }

    /// Waits until the server has asked its CLI for its version and help (those two processes are not conversations).
    func probed() async throws {
        _ = try await request(.GET, "/api/health")
    }

    /// The requests the model API double answered, in order.
    func modelRequests() -> [JSONObject] { anthropic?.requests() ?? openAI?.requests() ?? [] }

    /// The real CLI's transcript of `session` (it keeps one file per session under its config directory).
    func sessionFile(_ session: String) -> String? {
        let projects = claudeHome + "/.claude/projects"
        let directories = (try? FileManager.default.contentsOfDirectory(atPath: projects)) ?? []
        return directories.map { projects + "/" + $0 + "/" + session + ".jsonl" }.first { FileManager.default.fileExists(atPath: $0) }
    }

    func conversation(_ id: String) async throws -> Conversation {
        try await request(.GET, "/api/conversations/\(id)").json(Conversation.self)
    }

    /// Decides an approval; fails unless the server accepted it.
    @discardableResult
    func decide(_ approvalID: String, _ body: String) async throws -> Approval {
        let response = try await request(.POST, "/api/approvals/\(approvalID)", body)
        guard response.status == 200 else { throw TestFailure("decide: \(response.status) \(response.text)") }
        return try response.json(Approval.self)
    }
}

extension SSETestClient {
    /// Messages until one named `name` (included) arrives.
    func messages(until name: String, timeout: Double = 10, where match: (SSEMessage) -> Bool = { _ in true }) async throws -> [SSEMessage] {
        var collected: [SSEMessage] = []
        while true {
            let message = try await nextMessage(timeout: timeout)
            collected.append(message)
            if message.event == name && match(message) { return collected }
        }
    }
}

/// A message whose text fake-claude runs as a script, one command per line.
func script(_ lines: String...) -> String {
    (["#script"] + lines).joined(separator: "\n")
}
