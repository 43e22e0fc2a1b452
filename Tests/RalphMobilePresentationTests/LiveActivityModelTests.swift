import Foundation
import RalphAPI
import RalphMobileKit
import Testing
import TestSupport

@testable import RalphMobilePresentation

/// The session screen's Live Activity: started from a real run's detail, updated as the run goes, ended with it; a
/// refusal from ActivityKit is said.
@Suite("Live Activity model", .serialized)
@MainActor
struct LiveActivityModelTests {
    /// What the model asked ActivityKit to do.
    @MainActor
    final class Recorder {
        var actions: [LiveActivityTracker.Action] = []
    }

    struct Refused: Error, LocalizedError {
        var errorDescription: String? { "activities are disabled" }
    }

    @Test("start, updates only on change, end with the run's final state; the button's words follow the subject")
    func followsRun() async throws {
        let h = try await AppHarness.start()
        defer { Task { await h.stop() } }
        let (writer, id) = try await h.writeRun(prompt: "Lock screen run")
        let client = try h.client()
        let recorder = Recorder()
        let model = LiveActivityModel { recorder.actions.append($0) }
        var performed: [LiveActivityTracker.Action] { recorder.actions }

        let first = try await client.detail(id)
        #expect(model.canStart(first.session) && model.buttonTitle(for: id) == "Show on Lock Screen")
        await model.toggle(first)
        #expect(performed == [.start(LiveActivitySubject.session(first.session), LiveActivityContent.state(first))])
        #expect(model.isFollowing(id) && model.buttonTitle(for: id) == "Remove from Lock Screen" && model.buttonTitle(for: "other") == "Show on Lock Screen")
        await model.update(first)
        #expect(performed.count == 1, "unchanged content is not sent again")

        try writer.record(topic: "build.done", payload: "tests: pass", iteration: 1, hat: "builder", triggered: "reviewer")
        try await eventually(5, "the build in the detail") { try await client.detail(id).backpressure != nil }
        let second = try await client.detail(id)
        await model.update(second)
        guard case .update(let state)? = performed.last else { Issue.record("expected an update: \(performed)"); return }
        #expect(state.hat == "reviewer" && state.lastEvent == "build.done" && state.backpressure?.text == "tests ✓")

        try writer.terminate(reason: "completed", status: "done", iterations: 1, exitCode: 0)
        try await eventually(5, "the run to complete") { try await client.status(id).mode == .complete }
        let ended = try await client.detail(id)
        await model.update(ended)
        guard case .end(let final)? = performed.last else { Issue.record("expected the end: \(performed)"); return }
        #expect(final.phase == .completed && !model.isActive && !model.canStart(ended.session))
        await model.toggle(ended)
        #expect(model.problem == "This is over (completed): there is nothing to follow on the lock screen.")
        model.dismissProblem()
        #expect(model.problem == nil)
    }

    @Test("ActivityKit refusing to start is said, and nothing is left half-started")
    func refused() async throws {
        let model = LiveActivityModel { action in
            if case .start = action { throw Refused() }
        }
        let session = Session(
            id: "r1", iteration: 2, total: nil, hat: "builder", elapsedSecs: 5, mode: .live, status: .running, startedAt: "2026-11-23T10:00:00.000Z",
            lastEventAt: nil, eventCount: 3, taskName: "Run", workspace: "proj", path: "proj/.ralph/events.jsonl", pid: nil)
        let conversation = Conversation(
            id: "c1", title: "Chat", cwd: "app", backend: "claude", createdAt: "2026-11-23T10:00:00.000Z", updatedAt: "2026-11-23T10:00:00.000Z",
            lastActivityAt: "2026-11-23T10:00:00.000Z", status: .running)
        await model.start(conversation, approvals: [])
        #expect(model.problem == "The Live Activity could not be started (are Live Activities allowed for Ralph Mobile in Settings?): activities are disabled")
        #expect(!model.isActive, "a refused start leaves nothing to update")

        // A conversation followed from the chat screen: waiting for approval, then running again.
        let recorder = Recorder()
        let chat = LiveActivityModel { recorder.actions.append($0) }
        let waiting = Approval(
            id: "a1", conversationId: "c1", turnId: "t1", toolUseId: nil, toolName: "Bash", input: .object(JSONObject([("command", .string("make"))])),
            createdAt: "2026-11-23T10:01:00.000Z")
        await chat.toggle(conversation, approvals: [waiting])
        guard case .start(let subject, let state)? = recorder.actions.last else { Issue.record("expected a start: \(recorder.actions)"); return }
        #expect(subject.kind == .conversation && state.phase == .waitingForApproval && state.detailLine == "Bash: make")
        await chat.update(conversation, approvals: [])
        guard case .update(let running)? = recorder.actions.last else { Issue.record("expected an update: \(recorder.actions)"); return }
        #expect(running.phase == .running)
        await chat.toggle(conversation, approvals: [])
        #expect(recorder.actions.last == .end(running) && !chat.isActive)
        #expect(model.canStart(session))
        let tmp = TemporaryDirectory("rm-la")
        let hubless = NotificationsHub(app: try AppModel(directory: tmp.path, secrets: MemorySecretStore()), deviceName: "x")
        await hubless.liveActivity.start(conversation, approvals: [])
        #expect(hubless.liveActivity.problem?.hasSuffix("Live Activities are not available on this device.") == true)
    }
}
