import Foundation
import RalphAPI
import RalphMobileKit
import Testing
import TestSupport

@testable import RalphMobilePresentation

/// The auto-reply settings screen against the real server, whose loops drive the real Claude CLI.
@Suite("Auto-reply settings against the real server and the real Claude CLI", .serialized)
@MainActor
struct AutoReplySettingsTests {
    static func open(_ h: ChatHarness, _ id: String? = nil) async throws -> AutoReplySettingsModel {
        let conversationID: String
        if let id { conversationID = id } else { conversationID = try await h.newConversation().id }
        let form = AutoReplySettingsModel(client: h.client, conversationID: conversationID, capabilities: Capabilities(role: .operator))
        form.model.policy = ChatHarness.fastPolicy
        await form.start()
        try await chatUntil(5, "following") { form.model.connection == .connected }
        return form
    }

    @Test("loaded, edited field by field, saved (also as the folder's default), and the next conversation starts from it")
    func editAndSave() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let form = try await Self.open(h)
        #expect(form.mode == .smartStop && form.maxIterationsText == "20" && form.dirtyText == nil)
        #expect(form.controls == [.start] && !form.status.isVisible)
        form.mode = .timeBased
        #expect(form.problem(.maxMinutes) == "time_based needs max_minutes" && !form.canSave)
        #expect(await form.save() == false)
        #expect(try await h.client.autoReply(form.conversationID).settings == AutoReplySettings(), "nothing was sent")
        form.maxMinutesText = "45"
        form.maxIterationsText = "12"
        form.set(.stopOnError, false)
        form.nextPromptText = "Keep at it."
        #expect(form.canSave && form.dirtyText == "Unsaved changes")
        form.saveAsDefault = true
        #expect(await form.save())
        #expect(form.notice == "Saved (also the default for this folder)" && form.dirtyText == nil)
        let saved = try await h.client.autoReply(form.conversationID).settings
        #expect(saved.mode == .timeBased && saved.maxMinutes == 45 && saved.maxIterations == 12 && !saved.stopOnError && saved.nextPrompt.text == "Keep at it.")
        let next = try await Self.open(h)
        #expect(next.mode == .timeBased && next.maxMinutesText == "45" && next.nextPromptText == "Keep at it.")
        form.suspend()
        next.suspend()
    }

    @Test("started from the form with unsaved edits, the loop runs and is followed live until its message limit")
    func startAndFollow() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let form = try await Self.open(h)
        form.mode = .messageBased
        form.maxMessagesText = "2"
        form.nextPromptText = "#model\nsay Cycle {turn} done."
        #expect(await form.perform(.start), "\(form.lastError ?? "")")
        #expect(form.dirtyText == nil && form.maxMessagesText == "2", "the edits were sent and saved")
        var sawRunning = false
        try await chatUntil(40, "the loop to stop at its limit") {
            if form.status.stateText == "Running" { sawRunning = true }
            return form.status.reasonText?.hasPrefix("Stopped: message limit reached") == true
        }
        #expect(sawRunning)
        #expect(form.status.countsText?.hasSuffix("2/2 sent") == true)
        #expect(form.controls == [.start])
        let replies = try await h.client.messages(form.conversationID).items.filter { $0.role == .assistant }.map(\.text)
        #expect(replies == ["Cycle 1 done.", "Cycle 2 done."])
        form.suspend()
    }

    @Test("a loop waiting for a go: resume sends the prompt, stop ends it; the controls follow the state")
    func pauseResumeStop() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let form = try await Self.open(h)
        form.mode = .untilCompletion
        form.set(.requireConfirmation, true)
        form.nextPromptText = "#model\nsay Step {turn}."
        #expect(await form.perform(.start))
        try await chatUntil(40, "the prompt to wait for a go") { form.controls.first == .resume(sendsPrompt: true) }
        #expect(form.status.reasonText == "Paused: waiting for your go")
        #expect(form.status.pendingPrompt?.contains("say Step") == true, "\(form.status.pendingPrompt ?? "nil")")
        #expect(form.controls == [.resume(sendsPrompt: true), .stop])
        #expect(await form.perform(.resume(sendsPrompt: true)))
        try await eventually(30, "the prompt to be answered") {
            try await h.client.messages(form.conversationID).items.contains { $0.role == .assistant && $0.text.hasPrefix("Step") }
        }
        try await chatUntil(30, "the next go") { form.controls.first == .resume(sendsPrompt: true) }
        #expect(await form.perform(.stop))
        try await chatUntil(10, "stopped") { form.status.reasonText == "Stopped: stopped by a person" }
        #expect(form.controls == [.start])
        #expect(await form.perform(.stop) == false)
        #expect(form.lastError?.contains("already stopped") == true, "\(form.lastError ?? "")")
        form.suspend()
    }

    @Test("suspended, it stops following and keeps the form's edits; resumed, it follows again and hears what changed")
    func suspendResume() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let form = try await Self.open(h)
        form.maxIterationsText = "33"
        form.suspend()
        #expect(form.model.connection == .disconnected && !form.model.isFollowing)
        var settings = AutoReplySettings(mode: .messageBased, maxMessages: 1)
        settings.nextPrompt = NextPrompt(text: "#model\nsay once")
        _ = try await h.client.startAutoReply(form.conversationID, settings: settings)
        try await eventually(30, "the loop to stop on the server") { try await h.client.autoReply(form.conversationID).progress.state == .stopped }
        #expect(!form.status.isVisible, "nothing heard while suspended")
        await form.resume()
        try await chatUntil(10, "the progress read on reconnecting") { form.status.reasonText?.hasPrefix("Stopped: message limit reached") == true }
        #expect(form.maxIterationsText == "33", "the edits are kept")
        form.suspend()
    }
}
