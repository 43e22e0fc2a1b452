import Foundation
import RalphAPI
import RalphMobileKit
import Testing

@testable import RalphMobilePresentation

/// The auto-reply status bar and settings form, without a server (the form's SDK model is never asked to send).
@Suite("Auto-reply values: status bar, controls, form fields")
@MainActor
struct AutoReplyValuesTests {
    let now = ChatFixtures.now

    func form(role: Role = .operator) throws -> AutoReplySettingsModel {
        AutoReplySettingsModel(client: try RalphClient(baseURL: "http://127.0.0.1:9"), conversationID: "c-running", capabilities: Capabilities(role: role))
    }

    @Test("the status bar: mode, counts, time ticking while running, confidence, and the controls of each state")
    func statusBar() {
        let running = ChatFixtures.statusBar
        #expect(running.isVisible && running.modeTitle == "Hybrid" && running.stateText == "Running" && running.tone == .active)
        #expect(running.countsText == "cycle 3/20 · 2/10 sent")
        #expect(running.timeText(now: now) == "1m 05s of 2h 00m")
        #expect(running.timeText(now: now.addingTimeInterval(10)) == "1m 15s of 2h 00m", "time goes on between reports")
        #expect(running.confidenceText == "confidence 42%")
        #expect(running.reasonText == nil)
        #expect(running.controls == [.pause, .stop])
        #expect(running.accessibilityLabel(now: now) == "Auto-reply, Hybrid, Running, cycle 3/20 · 2/10 sent, 1m 05s of 2h 00m, confidence 42%")
        let paused = AutoReplyStatusBar(progress: ChatFixtures.progress(.paused), fraction: 0.3, canControl: true)
        #expect(paused.reasonText == "Paused: needs a person — asks for a password")
        #expect(paused.timeText(now: now.addingTimeInterval(10)) == "1m 05s of 2h 00m", "a paused loop's time stands still")
        #expect(paused.controls == [.resume(sendsPrompt: false), .stop])
        var waiting = ChatFixtures.progress(.paused)
        waiting.pauseReason = .confirmation
        waiting.detail = "the next prompt waits for your go"
        waiting.pendingPrompt = "Continue."
        let confirm = AutoReplyStatusBar(progress: waiting, fraction: nil, canControl: true)
        #expect(confirm.reasonText == "Paused: waiting for your go")
        #expect(confirm.controls == [.resume(sendsPrompt: true), .stop])
        #expect(AutoReplyControl.resume(sendsPrompt: true).label == "Resume (send it)")
        let stopped = AutoReplyStatusBar(progress: ChatFixtures.progress(.stopped), fraction: 1, canControl: true)
        #expect(stopped.reasonText == "Stopped: message limit reached" && stopped.controls.isEmpty)
        #expect(AutoReplyControl.available(for: ChatFixtures.progress(.stopped), includingStart: true) == [.start])
        let viewer = AutoReplyStatusBar(progress: ChatFixtures.progress(.running), fraction: nil, canControl: false)
        #expect(viewer.controls.isEmpty)
        // A loop never started takes no room.
        var never = ChatFixtures.progress(.stopped)
        never.startedAt = nil
        never.stopReason = nil
        let off = AutoReplyStatusBar(progress: never, fraction: nil, canControl: true)
        #expect(!off.isVisible && off.stateText == "Off" && off.countsText == nil)
        #expect(!AutoReplyStatusBar(progress: nil, fraction: nil, canControl: true).isVisible)
        #expect(AutoReplyControl.stop.confirmation?.title == "Stop auto-reply?" && AutoReplyControl.pause.confirmation == nil)
    }

    @Test("the words of the five modes, the reasons and the presets")
    func words() {
        #expect(AutoReplyMode.allCases.map(AutoReplyWords.title) == ["Smart stop", "Until completion", "Time based", "Message based", "Hybrid"])
        #expect(AutoReplyWords.explanation(.timeBased).contains("8 h") && AutoReplyWords.explanation(.messageBased).contains("1 – 100"))
        #expect(AutoReplyWords.reason(.iterationLimit) == "cycle limit reached")
        #expect(AutoReplyWords.preset("quick") == "Quick — 5 auto-replies, then stop" && AutoReplyWords.preset("mine") == "mine")
        #expect(AutoReplyWords.percent(0.426) == "43%")
    }

    @Test("number fields are read as typed: a problem on its field, the draft unchanged until the text is a number")
    func numberFields() throws {
        let form = try form()
        #expect(form.maxIterationsText == "20" && form.maxMinutesText == "" && form.minConfidenceText == "0.8")
        form.maxIterationsText = "abc"
        #expect(form.problem(.maxIterations) == "A whole number from 1 to 500.")
        #expect(form.model.draft.maxIterations == 20)
        #expect(!form.canSave)
        form.maxIterationsText = "600"
        #expect(form.model.draft.maxIterations == 600)
        #expect(form.problem(.maxIterations) == "max_iterations must be from 1 to 500, got 600")
        form.maxIterationsText = "30"
        #expect(form.problem(.maxIterations) == nil && form.canSave && form.dirtyText == "Unsaved changes")
        form.maxMinutesText = "90"
        #expect(form.model.draft.maxMinutes == 90)
        form.maxMinutesText = ""
        #expect(form.model.draft.maxMinutes == nil && form.problem(.maxMinutes) == nil)
        form.maxMessagesText = "1.5"
        #expect(form.problem(.maxMessages) == "A whole number from 1 to 100, or empty.")
        form.maxMessagesText = ""
        form.minConfidenceText = "0,5"
        #expect(form.model.draft.minConfidence == 0.5)
        form.minConfidenceText = "high"
        #expect(form.problem(.minConfidence) == "A number from 0 to 1.")
        form.minConfidenceText = "2"
        #expect(form.problem(.minConfidence) == "min_confidence must be from 0 to 1, got 2.0")
    }

    @Test("each mode says which limits it needs; a mode without its limit shows the problem on that field")
    func modes() throws {
        let form = try form()
        form.mode = .timeBased
        #expect(form.isRequired(.maxMinutes) && !form.isRequired(.maxMessages))
        #expect(form.applies(.maxMinutes) && !form.applies(.maxMessages) && !form.applies(.minConfidence))
        #expect(form.problem(.maxMinutes) == "time_based needs max_minutes")
        form.mode = .messageBased
        #expect(form.problem(.maxMessages) == "message_based needs max_messages" && form.problem(.maxMinutes) == nil)
        form.mode = .hybrid
        #expect(form.isRequired(.maxMinutes) && form.isRequired(.maxMessages))
        #expect(form.problem(.maxMinutes) == "hybrid needs max_minutes or max_messages")
        form.maxMessagesText = "10"
        #expect(!form.isRequired(.maxMinutes) && form.problems.isEmpty)
        form.mode = .smartStop
        #expect(form.applies(.minConfidence) && form.modeExplanation.hasPrefix("Stops when a reply looks done"))
        #expect(AutoReplySettingsModel.field(of: "judge.base_url must be an http(s) URL") == .judge)
        #expect(AutoReplySettingsModel.field(of: "next_prompt.text cannot be empty") == .nextPrompt)
        #expect(AutoReplySettingsModel.field(of: "unknown mode 'x'") == .mode)
    }

    @Test("presets fill the form and its fields; import fills them too; revert forgets; export names its file")
    func presetsImportExport() throws {
        let form = try form()
        #expect(form.presets.map(\.name) == ["careful", "overnight", "quick", "supervised"])
        #expect(form.presets[2].label == "Quick — 5 auto-replies, then stop")
        form.nextPromptText = "Keep going."
        #expect(form.applyPreset("overnight"))
        #expect(form.mode == .hybrid && form.maxMinutesText == "480" && form.maxIterationsText == "100" && form.minConfidenceText == "0.9")
        #expect(form.nextPromptText == "Keep going." && form.notice == "Preset “overnight” loaded: not saved yet")
        #expect(!form.applyPreset("forever") && form.lastError?.contains("unknown preset") == true)
        #expect(form.importJSON(#"{"mode":"message_count","max_messages":7,"require_confirmation":true}"#))
        #expect(form.mode == .messageBased && form.maxMessagesText == "7" && form.maxMinutesText == "" && form.isOn(.requireConfirmation))
        #expect(!form.importJSON("{nope") && form.maxMessagesText == "7")
        #expect(form.exportText.contains("\"max_messages\" : 7"))
        #expect(form.exportFileName == "auto-reply-c-runnin.json")
        form.set(.allowOverride, false)
        #expect(!form.model.draft.allowOverride)
        form.revert()
        #expect(form.mode == .smartStop && form.maxMessagesText == "" && form.isOn(.allowOverride) && form.dirtyText == nil)
        #expect(form.nextPromptPlaceholder.hasPrefix("Default: Continue with the task."))
    }

    @Test("a viewer sees the settings but gets no controls and cannot save")
    func viewer() async throws {
        let form = try form(role: .viewer)
        #expect(!form.canEdit && form.controls.isEmpty)
        form.maxIterationsText = "30"
        #expect(!form.canSave)
        #expect(await form.save() == false)
        #expect(await form.perform(.start) == false)
    }
}
