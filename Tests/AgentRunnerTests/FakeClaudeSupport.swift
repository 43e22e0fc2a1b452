import Foundation
import RalphAPI

@testable import AgentRunner

/// A temporary home for one fake-claude conversation: working directory, config directory (sessions) and event log.
struct FakeClaudeHome {
    /// The built `fake-claude`, next to the test bundle.
    static var executable: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("fake-claude").path
    }

    /// The flags the server uses.
    static let streamFlags = [
        "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
        "--permission-prompt-tool", "stdio",
    ]

    let root: String
    var cwd: String { root + "/work" }
    var config: String { root + "/config" }
    var logFile: String { root + "/log.jsonl" }

    init() throws {
        root = FileManager.default.temporaryDirectory.path + "/fake-claude-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root + "/work", withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }

    func start(_ arguments: [String] = streamFlags) throws -> FakeClaudeDriver {
        let process = try AgentProcess.start(
            executable: Self.executable, arguments: arguments, workingDirectory: cwd,
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": root, "CLAUDE_CONFIG_DIR": config, "FAKE_CLAUDE_LOG": logFile, "FAKE_CLAUDE_DELAY_MS": "1",
            ]
        )
        return FakeClaudeDriver(process: process)
    }

    /// The `FAKE_CLAUDE_LOG` events so far.
    func events() -> [JSONValue] {
        let text = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
    }

    /// The parsed `line`s of the `stdin` events.
    func stdinLines() -> [JSONValue] {
        events().compactMap { event in event.objectValue?["event"] == "stdin" ? event.objectValue?["line"] : nil }
    }
}

/// One stdout line of fake-claude: its text, and its JSON object when it is one.
struct FakeClaudeLine {
    let text: String
    let object: JSONObject?

    subscript(key: String) -> JSONValue? { object?[key] }
    /// The whole line as a JSON value, when it is an object.
    var value: JSONValue? { object.map(JSONValue.object) }
    var type: String? { object?["type"]?.stringValue }
    var subtype: String? { object?["subtype"]?.stringValue }

    func `is`(_ type: String, _ subtype: String? = nil) -> Bool { self.type == type && (subtype == nil || self.subtype == subtype) }
}

/// Drives a running fake-claude: writes stdin lines, reads stdout lines as JSON.
struct FakeClaudeDriver {
    let process: AgentProcess
    private var iterator: AsyncStream<[UInt8]>.Iterator

    init(process: AgentProcess) {
        self.process = process
        iterator = process.lines.makeAsyncIterator()
    }

    func send(_ line: JSONValue) { process.send(JSONWriter.bytes(line) + [0x0A]) }

    /// The next stdout line; nil at end of output.
    mutating func next() async -> FakeClaudeLine? {
        guard let bytes = await iterator.next() else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        return FakeClaudeLine(text: text, object: (try? JSONParser.parse(bytes))?.objectValue)
    }

    /// Lines up to and including the first one matching `stop` (or up to end of output).
    mutating func collect(until stop: (FakeClaudeLine) -> Bool) async -> [FakeClaudeLine] {
        var lines: [FakeClaudeLine] = []
        while let line = await next() {
            lines.append(line)
            if stop(line) { break }
        }
        return lines
    }

    /// Lines up to and including the next `result`.
    mutating func turn() async -> [FakeClaudeLine] { await collect { $0.is("result") } }

    /// Lines up to and including the next `can_use_tool` request, whose `request_id` and `request` are returned too.
    mutating func untilPermission() async -> (lines: [FakeClaudeLine], id: String, request: JSONObject)? {
        let lines = await collect { $0.is("control_request") && $0["request"]?.objectValue?["subtype"] == "can_use_tool" }
        guard let last = lines.last, let id = last["request_id"]?.stringValue, let request = last["request"]?.objectValue else { return nil }
        return (lines, id, request)
    }
}

/// The stdin lines a host writes.
enum FakeClaudeInput {
    static func user(_ text: String, uuid: String? = nil) -> JSONValue {
        var line = JSONObject([("type", "user")])
        if let uuid { line["uuid"] = .string(uuid) }
        line["message"] = ["role": "user", "content": .string(text)]
        return .object(line)
    }

    /// A user line whose text is a `#script` with these commands.
    static func script(_ lines: String..., uuid: String? = nil) -> JSONValue {
        user((["#script"] + lines).joined(separator: "\n"), uuid: uuid)
    }

    static func allow(_ requestID: String, input: JSONValue, updatedPermissions: JSONValue? = nil) -> JSONValue {
        var decision = JSONObject([("behavior", "allow"), ("updatedInput", input)])
        if let updatedPermissions { decision["updatedPermissions"] = updatedPermissions }
        return response(requestID, decision)
    }

    static func deny(_ requestID: String, message: String, interrupt: Bool = false) -> JSONValue {
        var decision = JSONObject([("behavior", "deny"), ("message", .string(message))])
        if interrupt { decision["interrupt"] = true }
        return response(requestID, decision)
    }

    static func control(_ requestID: String, _ request: JSONValue) -> JSONValue {
        ["type": "control_request", "request_id": .string(requestID), "request": request]
    }

    static func interrupt(_ requestID: String) -> JSONValue { control(requestID, ["subtype": "interrupt"]) }

    private static func response(_ requestID: String, _ decision: JSONObject) -> JSONValue {
        ["type": "control_response", "response": ["subtype": "success", "request_id": .string(requestID), "response": .object(decision)]]
    }
}

extension [FakeClaudeLine] {
    /// The last `result` object.
    var result: JSONObject? { last { $0.is("result") }?.object }

    /// The text of the main conversation's text deltas, joined.
    var deltas: String {
        compactMap { line -> String? in
            guard line.is("stream_event"), let delta = line["event"]?.objectValue?["delta"]?.objectValue, delta["type"] == "text_delta" else {
                return nil
            }
            return delta["text"]?.stringValue
        }.joined()
    }

    /// The main conversation's `assistant` lines.
    var assistants: [FakeClaudeLine] { filter { $0.is("assistant") && $0["parent_tool_use_id"] == .null } }

    private var assistantBlocks: [JSONObject] {
        assistants.flatMap { line -> [JSONObject] in
            guard case .array(let blocks)? = line["message"]?.objectValue?["content"] else { return [] }
            return blocks.compactMap(\.objectValue)
        }
    }

    /// The texts of the main conversation's assistant text blocks.
    var texts: [String] { assistantBlocks.compactMap { $0["type"] == "text" ? $0["text"]?.stringValue : nil } }

    var toolUses: [(id: String, name: String, input: JSONValue)] {
        assistantBlocks.compactMap { block in
            guard block["type"] == "tool_use", let id = block["id"]?.stringValue, let name = block["name"]?.stringValue else { return nil }
            return (id, name, block["input"] ?? .null)
        }
    }

    /// The `tool_result` blocks of the `user` lines: their tool use id, content and error flag.
    var toolResults: [(id: String, content: JSONValue, isError: Bool)] {
        filter { $0.is("user") }.flatMap { line -> [(id: String, content: JSONValue, isError: Bool)] in
            guard case .array(let blocks)? = line["message"]?.objectValue?["content"] else { return [] }
            return blocks.compactMap(\.objectValue).compactMap { block in
                guard block["type"] == "tool_result", let id = block["tool_use_id"]?.stringValue else { return nil }
                return (id, block["content"] ?? .null, block["is_error"]?.boolValue ?? false)
            }
        }
    }

    /// The `command_lifecycle` lines as "<command_uuid> <state>".
    var lifecycle: [String] {
        filter { $0.is("command_lifecycle") }.map { "\($0["command_uuid"]?.stringValue ?? "?") \($0["state"]?.stringValue ?? "?")" }
    }

    var permissionRequests: Int { count { $0.is("control_request") && $0["request"]?.objectValue?["subtype"] == "can_use_tool" } }

    /// Whether any line carries `user_message_uuid` or `user_message_uuids`.
    var nameUserMessages: Bool { contains { $0["user_message_uuid"] != nil || $0["user_message_uuids"] != nil } }
}
