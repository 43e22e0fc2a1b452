import Foundation
import RalphAPI
import Testing
import TestSupport

@testable import RalphMobileKit

/// The auto-reply settings form and live progress against the real server, whose conversations run the `claude` double.
@Suite("Auto-reply model against the real server", .serialized)
@MainActor
struct AutoReplyModelTests {
    static func openModel(_ h: KitHarness) async throws -> AutoReplyModel {
        let model = AutoReplyModel(client: h.client, conversationID: try await h.newConversation())
        model.policy = KitHarness.fastPolicy
        await model.load()
        return model
    }

    @Test("load gives the saved settings, a clean draft, the presets and a stopped loop")
    func load() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let model = try await Self.openModel(h)
        #expect(model.lastError == nil)
        #expect(model.isLoaded)
        #expect(model.draft == model.settings)
        #expect(!model.isDirty && !model.canSave)
        #expect(model.problems.isEmpty)
        #expect(Set(model.presets.keys) == Set(AutoReplySettings.presets.keys))
        #expect(model.progress?.state == .stopped)
        #expect(model.progress?.conversationId == model.conversationID)
        #expect(model.statusLine == "stopped")
    }

    @Test("the draft is validated as it is edited; a draft with problems is not sent")
    func draftValidation() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let model = try await Self.openModel(h)
        model.draft.mode = .messageBased
        #expect(model.problems == ["message_based needs max_messages"])
        #expect(model.isDirty && !model.canSave)
        model.draft.maxMessages = 0
        model.draft.minConfidence = 1.5
        #expect(model.problems.contains("max_messages must be from 1 to 100, got 0"))
        #expect(model.problems.contains { $0.hasPrefix("min_confidence must be from 0 to 1") })
        #expect(await model.save() == false)
        #expect(model.lastError?.contains("max_messages must be from 1 to 100") == true)
        #expect(await model.start() == false)
        // Nothing reached the server.
        let status = try await h.client.autoReply(model.conversationID)
        #expect(status.settings == AutoReplySettings())
        #expect(status.progress.state == .stopped)
        model.draft.maxMessages = 4
        model.draft.minConfidence = 0.5
        #expect(model.problems.isEmpty && model.canSave)
        #expect(await model.save())
        #expect(!model.isDirty && model.lastError == nil)
        #expect(try await h.client.autoReply(model.conversationID).settings.maxMessages == 4)
    }

    @Test("a preset goes into the draft (keeping the prompt) and is saved, also as the directory's default")
    func presetApplyAndSave() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let model = try await Self.openModel(h)
        model.draft.nextPrompt = NextPrompt(strategy: .fixed, text: "Keep going.")
        #expect(model.applyPreset("overnight"))
        #expect(model.draft.mode == .hybrid && model.draft.maxMinutes == 480 && model.draft.maxIterations == 100)
        #expect(model.draft.nextPrompt.text == "Keep going.")
        #expect(model.canSave)
        #expect(await model.save(asDefault: true))
        #expect(model.settings.mode == .hybrid && model.settings.nextPrompt.text == "Keep going.")
        #expect(!model.applyPreset("nonsense"))
        #expect(model.lastError?.contains("unknown preset") == true)
        #expect(model.draft.mode == .hybrid)
        // The default applies to the next conversation in the same directory.
        let next = try await Self.openModel(h)
        #expect(next.settings.mode == .hybrid && next.settings.maxMinutes == 480)
        // The client's preset route replaces the settings wholesale.
        let quick = try await h.client.applyAutoReplyPreset(model.conversationID, name: "quick")
        #expect(quick.settings == AutoReplySettings.presets["quick"])
    }

    @Test("a message_based loop started from the draft is followed live until it stops at its message limit")
    func followsALoop() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let model = try await Self.openModel(h)
        model.follow()
        try await until(5, "connected") { model.connection == .connected }
        model.draft.mode = .messageBased
        model.draft.maxMessages = 3
        model.draft.nextPrompt = NextPrompt(strategy: .fixed, text: "#model\nsay Cycle {turn} done here.")
        #expect(model.isDirty)
        #expect(await model.start(), "\(model.lastError ?? "")")
        #expect(!model.isDirty, "the draft was sent and saved")
        #expect(model.settings.maxMessages == 3)
        var sawRunning = false
        try await until(30, "the loop to stop at its limit") {
            if model.progress?.state == .running { sawRunning = true }
            return model.progress?.state == .stopped && model.progress?.stopReason == .messageLimit
        }
        let p = try #require(model.progress)
        #expect(sawRunning)
        #expect(p.messages == 3)
        #expect(model.fractionDone == 1)
        #expect(model.statusLine.hasPrefix("stopped: message_limit"), "\(model.statusLine)")
        // The conversation holds the three cycles.
        let messages = try await h.client.messages(model.conversationID).items
        #expect(messages.filter { $0.role == .assistant }.map(\.text) == ["Cycle 1 done here.", "Cycle 2 done here.", "Cycle 3 done here."])
        // Stopping a stopped loop is refused with the server's reason.
        #expect(await model.stop() == false)
        #expect(model.lastError?.contains("already stopped") == true)
        model.stopFollowing()
        #expect(model.connection == .disconnected)
    }

    @Test("progress from events: other conversations and older reports are ignored; status lines and fraction done")
    func applyProgress() async throws {
        let model = AutoReplyModel(client: try RalphClient(baseURL: "http://127.0.0.1:9"), conversationID: "c1")
        func progress(_ state: AutoReplyState, at time: String, id: String = "c1") -> AutoReplyProgress {
            AutoReplyProgress(
                conversationId: id, mode: .hybrid, state: state, iterations: 3, maxIterations: 20, messages: 2, maxMessages: 10, elapsedSecs: 65,
                maxMinutes: 2, confidence: 0.42, stopReason: state == .stopped ? .messageLimit : nil, pauseReason: state == .paused ? .showstopper : nil,
                detail: state == .paused ? "asks for a password" : nil, startedAt: "2026-01-01T10:00:00Z", updatedAt: time, pendingPrompt: nil
            )
        }
        #expect(model.statusLine == "not loaded" && model.fractionDone == nil)
        model.apply(progress(.running, at: "2026-01-01T10:01:05Z"))
        #expect(model.statusLine == "running · cycle 3/20 · 2/10 sent · 1m 05s of 2m 00s · confidence 0.42")
        #expect(abs((model.fractionDone ?? 0) - 65.0 / 120.0) < 1e-9)
        model.apply(progress(.paused, at: "2026-01-01T10:01:00Z"))
        #expect(model.progress?.state == .running, "older")
        model.apply(progress(.paused, at: "2026-01-01T10:02:00Z", id: "c2"))
        #expect(model.progress?.state == .running, "another conversation")
        model.apply(progress(.paused, at: "2026-01-01T10:02:00Z"))
        #expect(model.statusLine == "paused: showstopper — asks for a password")
        model.apply(progress(.stopped, at: "2026-01-01T10:03:00Z"))
        #expect(model.statusLine == "stopped: message_limit")
    }

    @Test("export and import round-trip the draft; a bad import leaves it unchanged")
    func exportImport() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let model = try await Self.openModel(h)
        model.draft.mode = .timeBased
        model.draft.maxMinutes = 90
        model.draft.requireConfirmation = true
        model.draft.judge = JudgeSettings(baseUrl: "http://127.0.0.1:11434/v1", model: "llama", apiKeyRef: "JUDGE_KEY")
        model.draft.nextPrompt = NextPrompt(strategy: .judge, text: "Continue.")
        let json = model.exportJSON()
        #expect(json.contains("\"max_minutes\" : 90") && json.contains("\"mode\" : \"time_based\"") && json.contains("http://127.0.0.1:11434/v1"))
        let exported = model.draft
        model.revert()
        #expect(model.draft == model.settings)
        #expect(model.importJSON(json))
        #expect(model.draft == exported)
        // Partial JSON and old spellings are fine.
        #expect(model.importJSON(#"{"mode":"messageBased","max_messages":7}"#))
        #expect(model.draft.mode == .messageBased && model.draft.maxMessages == 7 && model.draft.maxIterations == 20)
        let before = model.draft
        #expect(model.importJSON("{not json") == false)
        #expect(model.lastError?.contains("not valid JSON") == true, "\(model.lastError ?? "")")
        #expect(model.importJSON(#"{"mode":"forever"}"#) == false)
        #expect(model.lastError?.contains("unknown mode 'forever'") == true, "\(model.lastError ?? "")")
        #expect(model.importJSON(#"{"max_messages":"many"}"#) == false)
        #expect(model.lastError?.contains("max_messages") == true, "\(model.lastError ?? "")")
        #expect(model.draft == before)
    }
}
