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
        let environment = ProcessInfo.processInfo.environment
        if let given = environment["RALPH_MOBILE_CLAUDE"], !given.isEmpty { return given }
        let cache = environment["RALPH_MOBILE_CACHE"] ?? ((environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")) + "/ralph-mobile")
        let unpacked = cache + "/unpacked"
        let candidates = (try? FileManager.default.contentsOfDirectory(atPath: unpacked)) ?? []
        return candidates.filter { $0.hasPrefix("claude_agent_sdk-\(wheelVersion)-") }.map { unpacked + "/" + $0 + "/claude_agent_sdk/_bundled/claude" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
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
        let process = try AgentProcess.start(
            executable: Products.path("fake-anthropic"), arguments: ["--port", "0"], workingDirectory: "/",
            environment: ProcessInfo.processInfo.environment.merging(["FAKE_ANTHROPIC_LOG": log]) { _, new in new }
        )
        let first: [UInt8]? = try await withTimeout(10, "fake-anthropic to listen") {
            var lines = process.lines.makeAsyncIterator()
            return await lines.next()
        }
        let line = first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard let range = line.range(of: "http://") else {
            await process.terminate()
            throw TestFailure("fake-anthropic did not start: \(line) \(process.stderrTail)")
        }
        return FakeAnthropic(base: String(line[range.lowerBound...]), log: log, process: process)
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
    public func requests() -> [JSONObject] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { (try? JSONParser.parse(String($0)))?.objectValue }
    }
}

/// A message whose text fake-anthropic answers as a script: one API response per step, steps separated by `---`.
public func model(_ steps: [String]...) -> String {
    "#model\n" + steps.map { $0.joined(separator: "\n") }.joined(separator: "\n---\n")
}
