import Foundation
import NIOHTTP1
import RalphAPI

@testable import RalphMobileServer

/// A real server whose conversations run the `claude` test double (`fake-claude`, which speaks the CLI's stream-json
/// protocol from a script in each message), with its own workspace, data directory and CLI log.
final class ChatFixture: Sendable {
    let tmp: TemporaryDirectory
    let root: String
    let data: String
    /// Where fake-claude logs its argv, every stdin line and its exit.
    let log: String
    let claudeHome: String
    let server: LiveServer
    let headers: [(String, String)]

    var base: String { server.base }

    static func start(apiKey: String? = nil, _ configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in }) async throws -> ChatFixture {
        let tmp = TemporaryDirectory("rm-chat")
        let root = tmp.subdirectory("root")
        _ = tmp.subdirectory("root/app")
        let data = tmp.subdirectory("data")
        let log = tmp.path + "/claude.log"
        let claudeHome = tmp.subdirectory("claude-home")
        let server = try await Self.server(root: root, data: data, log: log, claudeHome: claudeHome, apiKey: apiKey, configure)
        return ChatFixture(tmp: tmp, root: root, data: data, log: log, claudeHome: claudeHome, server: server, apiKey: apiKey)
    }

    static func server(
        root: String, data: String, log: String, claudeHome: String, apiKey: String?, _ configure: @escaping @Sendable (inout ServerConfiguration) -> Void
    ) async throws -> LiveServer {
        try await LiveServer.start(workspaces: [root], dataDirectory: data) { configuration in
            configuration.claudeCommand = Products.fakeClaude
            configuration.chatEnvironment = ["FAKE_CLAUDE_LOG": log, "CLAUDE_CONFIG_DIR": claudeHome, "FAKE_CLAUDE_DELAY_MS": "1"]
            configuration.apiKey = apiKey
            configure(&configuration)
        }
    }

    private init(tmp: TemporaryDirectory, root: String, data: String, log: String, claudeHome: String, server: LiveServer, apiKey: String?) {
        self.tmp = tmp
        self.root = root
        self.data = data
        self.log = log
        self.claudeHome = claudeHome
        self.server = server
        self.headers = apiKey.map { [("X-Api-Key", $0)] } ?? []
    }

    /// A server started again on the same data directory (a restart), sharing this fixture's files.
    func restarted(_ configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in }) async throws -> LiveServer {
        try await Self.server(root: root, data: data, log: log, claudeHome: claudeHome, apiKey: headers.first?.1, configure)
    }

    func stop() async {
        await server.stop()
    }

    // MARK: - Requests

    func request(_ method: HTTPMethod, _ path: String, _ body: String? = nil, base: String? = nil, headers extra: [(String, String)]? = nil) async throws -> HTTPResult {
        try await HTTP.request((base ?? self.base) + path, method: method, headers: extra ?? headers, body: body)
    }

    func json(_ value: some Encodable) -> String {
        String(decoding: try! JSONEncoder().encode(value), as: UTF8.self)
    }

    func create(cwd: String = "app", title: String? = nil) async throws -> Conversation {
        let response = try await request(.POST, "/api/conversations", json(CreateConversationRequest(title: title, cwd: cwd)))
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

    func starts() -> [JSONObject] { logEntries().filter { $0["event"] == "start" } }
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
