import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Diffs before approval and after the edit ran, on both backends through the real server: Claude Code's Edit /
/// Write and Codex's apply_patch, against the files as they are on disk.
@Suite("Edits shown as diffs before and after approval", .serialized)
struct ChatEditDiffTests {
    /// The diffs of an event's data (`permission_required`, `tool_end`).
    static func diffs(_ json: [String: Any]?) throws -> [FileDiff] {
        guard let list = json?["diffs"] else { return [] }
        return try WireJSON.decode([FileDiff].self, from: JSONSerialization.data(withJSONObject: list))
    }

    @Test("an edit's approval carries its diff against the file now, read again when the file changes; once allowed, the diff applied", arguments: ChatFixture.Backend.allCases)
    func editOfAnExistingFile(_ backend: ChatFixture.Backend) async throws {
        let f = try await ChatFixture.start(backend: backend)
        defer { Task { await f.stop() } }
        let file = f.cwd + "/notes.txt"
        try "one\ntwo\nthree\n".write(toFile: file, atomically: true, encoding: .utf8)
        let (c, stream) = try await f.newConversation()
        try await f.send(c.id, model(["edit \(file) :: two :: 2"], ["say Done."]))
        let asked = try #require(try await stream.messages(until: "permission_required", timeout: 30).last?.json)
        let proposed = try #require(try Self.diffs(asked).first)
        #expect(proposed.kind == .update && proposed.error == nil && proposed.added == 1 && proposed.removed == 1)
        #expect(proposed.diff == "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n", "\(proposed.diff)")

        // The file changes on disk while the approval waits: what a person reads is against what is there now.
        try "zero\none\ntwo\nthree\n".write(toFile: file, atomically: true, encoding: .utf8)
        let pending = try #require(try await f.pendingApprovals(c.id).first)
        #expect(pending.diffs?.first?.diff == "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,4 +1,4 @@\n zero\n one\n-two\n+2\n three\n")

        try await f.decide(pending.id, #"{"decision":"allow"}"#)
        let rest = try await stream.messages(until: "complete", timeout: 30)
        let ended = try #require(rest.first { $0.event == "tool_end" }?.json)
        let applied = try #require(try Self.diffs(ended).first, "tool_end carries what the edit changed")
        #expect(applied.diff.contains("-two\n+2\n") && applied.added == 1 && applied.removed == 1)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "zero\none\n2\nthree\n")
        let stored = try await f.request(.GET, "/api/conversations/\(c.id)/messages").json(Page<ChatMessage>.self).items
        #expect(stored.flatMap(\.toolCalls).first?.diffs == [applied], "the conversation keeps the diff applied")
    }

    @Test("a new file is shown whole; a path outside the workspace roots has no diff, only why", arguments: ChatFixture.Backend.allCases)
    func newFileAndOutside(_ backend: ChatFixture.Backend) async throws {
        let f = try await ChatFixture.start(backend: backend)
        defer { Task { await f.stop() } }
        let (c, stream) = try await f.newConversation()
        try await f.send(c.id, model(["write \(f.cwd)/fresh.txt :: hello\\nworld"], ["write \(f.tmp.path)/outside.txt :: secret"], ["say Done."]))
        let first = try #require(try await stream.messages(until: "permission_required", timeout: 30).last?.json)
        let added = try #require(try Self.diffs(first).first)
        #expect(added.kind == .add && added.diff.hasPrefix("--- /dev/null\n+++ b/fresh.txt\n@@ -0,0 +1,2 @@\n+hello\n+world") && added.added == 2)
        try await f.decide(try #require(first["approval_id"] as? String), #"{"decision":"allow"}"#)
        let second = try #require(try await stream.messages(until: "permission_required", timeout: 30).last?.json)
        let outside = try #require(try Self.diffs(second).first)
        #expect(outside.diff.isEmpty && outside.error?.contains("outside the workspace roots") == true, "\(outside)")
        try await f.decide(try #require(second["approval_id"] as? String), #"{"decision":"deny"}"#)
        _ = try await stream.messages(until: "complete", timeout: 30)
        #expect(!FileManager.default.fileExists(atPath: f.tmp.path + "/outside.txt"))
    }

    @Test("Codex cannot run a call with a changed input: allowing with updated_input is refused and the call still waits")
    func codexRefusesEditedInput() async throws {
        let f = try await ChatFixture.start(backend: .codex)
        defer { Task { await f.stop() } }
        let (c, stream) = try await f.newConversation()
        try await f.send(c.id, model(["bash touch asked.txt"], ["say Done."]))
        let id = try #require(try await stream.messages(until: "permission_required", timeout: 30).last?.json["approval_id"] as? String)
        let refused = try await f.request(.POST, "/api/approvals/\(id)", #"{"decision":"allow","updated_input":{"command":"touch other.txt"}}"#)
        #expect(refused.status == 400 && refused.text.contains("codex cannot run a call with a changed input"), "\(refused.text)")
        #expect(try await f.pendingApprovals(c.id).map(\.id) == [id])
        try await f.decide(id, #"{"decision":"allow"}"#)
        _ = try await stream.messages(until: "complete", timeout: 30)
        #expect(FileManager.default.fileExists(atPath: f.cwd + "/asked.txt") && !FileManager.default.fileExists(atPath: f.cwd + "/other.txt"))
    }
}
