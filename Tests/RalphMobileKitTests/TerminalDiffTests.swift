import Foundation
import RalphAPI
import Testing
import TestSupport

@testable import RalphMobileKit

/// The terminal client and file edits and backends: diffs coloured (or plain) wherever an approval is shown and after
/// an edit ran, `backends`, and `chat --new --backend codex`, against the real server and the real agent CLIs.
@Suite("The ralph-mobile terminal client: diffs of edits and chat backends")
struct TerminalDiffTests {
    static let green = "\u{1B}[38;2;57;255;20m"
    static let pink = "\u{1B}[38;2;255;0;110m"
    static let cyan = "\u{1B}[38;2;0;217;255m"
    static let boldWhite = "\u{1B}[1;38;2;255;255;255m"

    /// Runs `ralph-mobile` with colours forced on (and `NO_COLOR` removed from the environment).
    static func coloured(_ arguments: [String], config: String) async throws -> Products.Output {
        try await Products.run(
            executable: "/usr/bin/env", ["-u", "NO_COLOR", "RALPH_MOBILE_COLOR=always", "RALPH_MOBILE_CONFIG_DIR=" + config, Products.path("ralph-mobile")] + arguments
        )
    }

    /// A conversation whose Edit of `notes.txt` (two → 2) waits for approval; returns its id and the approval's.
    static func pendingEdit(_ h: KitHarness) async throws -> (conversation: String, approval: String) {
        try h.base.write("app/notes.txt", "one\ntwo\nthree\n")
        let id = try await h.newConversation()
        _ = try await h.client.sendMessage(id, text: model(["edit \(h.root)/app/notes.txt :: two :: 2"], ["say Edited."]))
        let client = h.client
        let found = Locked<String?>(nil)
        try await eventually(30, "the Edit's approval") {
            let approval = try await client.approvals(state: .pending, conversationID: id).first
            found.withLock { $0 = approval?.id }
            return approval != nil
        }
        return (id, try #require(found.value))
    }

    @Test("approvals shows a pending Edit's diff: green +, red -, cyan @@, bold headers; plain with --no-color")
    func approvalsDiff() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let config = h.tmp.subdirectory("cli")
        let (_, approval) = try await Self.pendingEdit(h)
        let plain = try await TerminalClientTests.cli(["approvals", "--server", h.server.base, "--no-color"], config: config)
        #expect(plain.status == 0 && !plain.stdout.contains("\u{1B}"), "\(plain.stdout)")
        let lines = plain.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix(approval) == true && lines.first?.contains("Edit") == true)
        #expect(Array(lines.dropFirst()) == [
            "    ✎ notes.txt · +1 −1", "      --- a/notes.txt", "      +++ b/notes.txt", "      @@ -1,3 +1,3 @@", "       one", "      -two", "      +2", "       three",
        ])
        let colour = try await Self.coloured(["approvals", "--server", h.server.base], config: config)
        #expect(colour.status == 0, "\(colour.stderr)")
        #expect(colour.stdout.contains(Self.green + "+2\u{1B}[0m") && colour.stdout.contains(Self.pink + "-two\u{1B}[0m"), "\(colour.stdout.debugDescription)")
        #expect(colour.stdout.contains(Self.cyan + "@@ -1,3 +1,3 @@\u{1B}[0m") && colour.stdout.contains(Self.boldWhite + "--- a/notes.txt\u{1B}[0m"))
        #expect(colour.stdout.contains(Self.boldWhite + "✎ notes.txt · +1 −1\u{1B}[0m"))
        // Without a terminal and without RALPH_MOBILE_COLOR=always, a pipe gets no colours either.
        let piped = try await Products.run(executable: "/usr/bin/env", ["-u", "NO_COLOR", "RALPH_MOBILE_CONFIG_DIR=" + config, Products.path("ralph-mobile"), "approvals", "--server", h.server.base])
        #expect(!piped.stdout.contains("\u{1B}") && piped.stdout.contains("      -two"))
    }

    @Test("chat under tmux: an Edit's approval shows its diff, a allows it, and the diff applied follows its output")
    func chatDiffUnderTmux() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let id = try await h.newConversation()
        try h.base.write("app/notes.txt", "one\ntwo\nthree\n")
        let tmux = try Tmux()
        do {
            try await tmux.start(
                command: [Products.path("ralph-mobile"), "chat", id, "--server", h.server.base], environment: ["RALPH_MOBILE_CONFIG_DIR": h.tmp.subdirectory("cli")]
            )
            try await tmux.waitFor("the chat") { $0.contains(id) && $0.contains("claude") }
            _ = try await h.client.sendMessage(id, text: model(["edit \(h.root)/app/notes.txt :: two :: 2"], ["say Edited."]))
            try await tmux.waitFor("the approval with its diff", seconds: 30) {
                $0.contains("Edit needs your approval") && $0.contains("✎ notes.txt · +1 −1") && $0.contains("-two") && $0.contains("+2")
                    && $0.contains("@@ -1,3 +1,3 @@")
            }
            try await tmux.type("a")
            try await tmux.waitFor("the applied diff after the output", seconds: 30) {
                $0.contains("allowed Edit") && $0.contains("claude › Edited.") && $0.components(separatedBy: "✎ notes.txt · +1 −1").count == 3
            }
            try await tmux.type("/quit")
            try await eventually(5, "chat to quit") { await !tmux.isRunning }
        } catch {
            await tmux.kill()
            throw error
        }
        await tmux.kill()
        #expect(try String(contentsOfFile: h.root + "/app/notes.txt", encoding: .utf8) == "one\n2\nthree\n")
    }

    @Test("backends lists both agents with their modes; chat --new --backend codex runs Codex, whose apply_patch shows its diff")
    func codexBackend() async throws {
        let h = try await KitHarness.start(codex: true)
        defer { Task { await h.stop() } }
        let config = h.tmp.subdirectory("cli")
        let server = ["--server", h.server.base, "--no-color"]
        let client = h.client
        // A server just started may still be asking each CLI about itself (health waits 3 s for the answer).
        try await eventually(30, "both agents' versions") { try await client.health().agents?.allSatisfy { $0.version != nil } == true }
        let backends = try await TerminalClientTests.cli(["backends"] + server, config: config)
        #expect(backends.status == 0, "\(backends.stderr)")
        #expect(backends.stdout.contains("claude  \(RealClaude.pinnedVersion)") && backends.stdout.contains("codex   \(RealCodex.pinnedVersion)"), "\(backends.stdout)")
        #expect(backends.stdout.contains("permission modes: untrusted (default), on-request, never"))
        #expect(backends.stdout.contains("permission modes: default, ") && backends.stdout.contains("plan"))
        let json = try await TerminalClientTests.cli(["agents", "--json"] + server, config: config)
        #expect(try WireJSON.decode([AgentInfo].self, from: Data(json.stdout.utf8)).map(\.name) == ["claude", "codex"])

        // One message to Codex; its write waits for approval, answered from elsewhere, then the diff applied is printed.
        let path = h.root + "/app/fresh.txt"
        async let chat = TerminalClientTests.cli(
            ["chat", "--new", "--cwd", "app", "--backend", "codex", "-m", model(["write \(path) :: hello\\nworld"], ["say Done."])] + server, config: config
        )
        let found = Locked<String?>(nil)
        try await eventually(60, "Codex's approval") {
            let approval = try await client.approvals(state: .pending).first
            found.withLock { $0 = approval?.id }
            return approval != nil
        }
        let approval = try #require(found.value)
        let list = try await TerminalClientTests.cli(["approvals"] + server, config: config)
        #expect(list.stdout.contains("apply_patch") && list.stdout.contains("✎ fresh.txt · new file · +2") && list.stdout.contains("+hello"), "\(list.stdout)")
        #expect(try await TerminalClientTests.cli(["approvals", "allow", approval] + server, config: config).status == 0)
        let output = try await chat
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("· codex") && output.stdout.contains("apply_patch needs your approval"), "\(output.stdout)")
        #expect(output.stdout.contains("codex › Done."), "\(output.stdout)")
        #expect(output.stdout.components(separatedBy: "✎ fresh.txt · new file · +2").count == 3, "asked, then applied: \(output.stdout)")
        let rows = try await TerminalClientTests.cli(["conversations"] + server, config: config)
        #expect(rows.stdout.contains("codex"), "\(rows.stdout)")
    }

    @Test("an agent the server cannot run: backends says why, and chat --new --backend refuses with the server's words")
    func unavailableBackend() async throws {
        let h = try await KitHarness.start(codexCommand: "/nonexistent/codex")
        defer { Task { await h.stop() } }
        let config = h.tmp.subdirectory("cli")
        let server = ["--server", h.server.base, "--no-color"]
        let backends = try await TerminalClientTests.cli(["backends"] + server, config: config)
        #expect(backends.stdout.contains("codex   not available — ") && backends.stdout.contains("/nonexistent/codex"), "\(backends.stdout)")
        let refused = try await TerminalClientTests.cli(["chat", "--new", "--cwd", "app", "--backend", "codex", "-m", "hi"] + server, config: config)
        #expect(refused.status == 1 && refused.stderr.contains("backend codex is not available"), "\(refused.stderr)")
        let added = try await TerminalClientTests.cli(["servers", "add", h.server.base, "--name", "box"], config: config)
        #expect(added.status == 0 && added.stdout.contains("chat backends: claude") && added.stdout.contains("codex (not available)"), "\(added.stdout)")
        let misuse = try await TerminalClientTests.cli(["chat", "c_x", "--backend", "codex"] + server, config: config)
        #expect(misuse.status != 0 && misuse.stderr.contains("--backend is for a new conversation"), "\(misuse.stderr)")
    }
}
