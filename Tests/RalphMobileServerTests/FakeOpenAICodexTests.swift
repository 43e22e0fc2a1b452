import Foundation
import RalphAPI
import Testing

/// The real Codex CLI (0.147.0, `codex exec --json`) against fake-openai: proof that the double speaks what Codex
/// reads. The replies come through, and `bash`, `write` and `edit` make Codex really run the command and apply the
/// patch in its working directory.
@Suite("fake-openai with the real Codex CLI", .serialized, .timeLimit(.minutes(2)))
struct FakeOpenAICodexTests {
    /// What one `codex exec` printed: its exit status, its `--json` events, and stderr.
    struct Run {
        var status: Int32
        var events: [JSONObject]
        var stderr: String

        /// The texts of the completed items of `type` (`agent_message`, `reasoning`), in order.
        func texts(_ type: String) -> [String] {
            events.filter { $0["type"] == "item.completed" }.compactMap(\.["item"]?.objectValue).filter { $0["type"] == .string(type) }
                .compactMap { $0["text"]?.stringValue }
        }

        /// The completed `command_execution` items.
        var commands: [JSONObject] {
            events.filter { $0["type"] == "item.completed" }.compactMap(\.["item"]?.objectValue).filter {
                $0["type"] == "command_execution"
            }
        }
    }

    /// A Codex home, a workspace and fake-openai.
    final class Setup: Sendable {
        let tmp = TemporaryDirectory("rm-codex")
        let workspace: String
        let api: FakeOpenAI
        let environment: [String: String]

        init() async throws {
            workspace = tmp.subdirectory("workspace")
            api = try await FakeOpenAI.start(log: tmp.path + "/openai.log")
            environment = RealCodex.environment(home: tmp.subdirectory("codex-home"), apiBase: api.base)
        }

        /// `codex exec` of `prompt` in the workspace, with full access and no approvals (`exec` never asks).
        func exec(_ prompt: String, _ options: [String] = []) async throws -> Run {
            let codex = try RealCodex.require()
            let arguments = ["exec", "--json", "--skip-git-repo-check", "-s", "danger-full-access", "-C", workspace] + options + [prompt]
            let environment = environment
            let output = try await withTimeout(60, "codex exec") {
                try await Products.run(executable: codex, arguments, environment: environment)
            }
            let events = output.stdout.split(separator: "\n").compactMap { (try? JSONParser.parse(String($0)))?.objectValue }
            return Run(status: output.status, events: events, stderr: output.stderr)
        }

        func file(_ name: String) -> String? { try? String(contentsOfFile: workspace + "/" + name, encoding: .utf8) }

        func stop() async { await api.stop() }
    }

    @Test("Codex shows the message fake-openai streams, and the usage it reports")
    func reply() async throws {
        let s = try await Setup()
        defer { Task { await s.stop() } }
        let run = try await s.exec(model(["think Weighing the greeting", "say Hello from fake-openai.", "usage 300 40 200 7"]))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.texts("agent_message") == ["Hello from fake-openai."])
        #expect(run.texts("reasoning") == ["Weighing the greeting"])
        let usage = run.events.last { $0["type"] == "turn.completed" }?["usage"]?.objectValue
        #expect(usage?["input_tokens"] == 300 && usage?["cached_input_tokens"] == 200)
        #expect(usage?["output_tokens"] == 40 && usage?["reasoning_output_tokens"] == 7)
        let request = try #require(s.api.requests().first)
        #expect(request["path"] == "/v1/responses" && request["model"] == .string(RealCodex.model) && request["stream"] == true)
        #expect(request["tools"]?.arrayValue?.contains("shell_command") == true, "unified_exec is off: \(request)")
        #expect(request["tools"]?.arrayValue?.contains("apply_patch") == true)
    }

    @Test("bash makes Codex run the command with shell_command; the next request carries its output")
    func bash() async throws {
        let s = try await Setup()
        defer { Task { await s.stop() } }
        let run = try await s.exec(model(["say Running it.", "bash echo ran > ran.txt && echo printed"], ["say It ran."]))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(s.file("ran.txt") == "ran\n")
        #expect(run.commands.first?["exit_code"] == 0)
        #expect(run.commands.first?["aggregated_output"] == "printed\n")
        #expect(run.texts("agent_message") == ["Running it.", "It ran."])
        let requests = s.api.requests()
        #expect(requests.map { $0["step"] } == [0, 1])
        let output = requests.last?["last"]?.arrayValue?.first?.objectValue
        #expect(output?["type"] == "function_call_output")
        #expect(output?["output"]?.stringValue?.contains("Exit code: 0") == true, "\(String(describing: output))")
    }

    @Test("with unified exec on, bash goes through exec_command")
    func unifiedExec() async throws {
        let s = try await Setup()
        defer { Task { await s.stop() } }
        let run = try await s.exec(model(["bash echo unified > unified.txt"], ["say done"]), ["-c", "features.unified_exec=true"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(s.file("unified.txt") == "unified\n")
        #expect(s.api.requests().first?["tools"]?.arrayValue?.contains("exec_command") == true)
    }

    @Test("write and edit make Codex apply the patches: a new file, relative or absolute, and a changed line")
    func writeAndEdit() async throws {
        let s = try await Setup()
        defer { Task { await s.stop() } }
        try "line one\nline two\nline three\n".write(toFile: s.workspace + "/existing.txt", atomically: true, encoding: .utf8)
        let script = model(
            [#"write notes/new.txt :: hello\nworld"#], ["edit existing.txt :: line two :: line 2 (edited)"],
            ["write \(s.workspace)/absolute.txt :: absolute"], ["say Patched."])
        let run = try await s.exec(script)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(s.file("notes/new.txt") == "hello\nworld\n")
        #expect(s.file("existing.txt") == "line one\nline 2 (edited)\nline three\n")
        #expect(s.file("absolute.txt") == "absolute\n")
        #expect(run.texts("agent_message") == ["Patched."])
        let outputs = s.api.requests().dropFirst().compactMap { $0["last"]?.arrayValue?.first?.objectValue }
        #expect(outputs.map { $0["type"] } == Array(repeating: "custom_tool_call_output", count: 3))
        #expect(outputs.allSatisfy { $0["output"]?.stringValue?.contains("Success.") == true }, "\(outputs)")
    }

    @Test("a scripted 400 fails the turn with the error body, and max_output_tokens fails it as incomplete")
    func failures() async throws {
        let s = try await Setup()
        defer { Task { await s.stop() } }
        let refused = try await s.exec(model(["error 400 scripted refusal"]))
        #expect(refused.status != 0)
        let failed = refused.events.last { $0["type"] == "turn.failed" }?["error"]?.objectValue?["message"]?.stringValue
        #expect(failed?.contains(#""message":"scripted refusal","type":"invalid_request_error""#) == true, "\(refused.events)")
        let incomplete = try await s.exec(model(["say partial", "stop max_output_tokens"]))
        #expect(incomplete.texts("agent_message") == ["partial"])
        let reason = incomplete.events.last { $0["type"] == "turn.failed" }?["error"]?.objectValue?["message"]?.stringValue
        #expect(reason?.contains("Incomplete response returned, reason: max_output_tokens") == true)
    }
}
