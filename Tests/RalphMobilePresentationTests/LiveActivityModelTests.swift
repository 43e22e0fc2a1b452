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

    @Test("the push token is registered with the state shown; the server pushes the run's changes over APNs; ending it here unregisters; a server without APNs is a note")
    func serverKeepsItCurrent() async throws {
        let tmp = TemporaryDirectory("rm-la-push")
        let (receiver, credentials) = try await APNsReceiver.started(in: tmp)
        let h = try await AppHarness.start { $0.useLocalAPNs(credentials) }
        defer { Task { await h.stop(); await receiver.stop() } }
        let (writer, id) = try await h.writeRun(prompt: "Pushed run")
        let client = try h.client()
        let model = LiveActivityModel { _ in }
        model.server = LiveActivityServer(client: client, environment: .sandbox)
        let detail = try await client.detail(id)
        await model.toggle(detail)
        let token = Data(repeating: 0xCD, count: 32)
        let hex = String(repeating: "cd", count: 32)
        await model.pushTokenReceived(token)
        #expect(model.registration?.subjectId == id && model.serverNote == nil)
        #expect(try await client.liveActivities().map(\.lastState) == [LiveActivityContent.state(detail)])

        // The app is suspended; the run goes on and the server pushes the change.
        try writer.record(topic: "build.done", payload: "tests: pass", iteration: 1, hat: "builder", triggered: "reviewer")
        try await eventually(10, "the server's update") { try !receiver.liveActivityPushes(to: hex).isEmpty }
        let push = try #require(try receiver.liveActivityPushes(to: hex).first)
        let content = push["payload"]?.objectValue?["aps"]?.objectValue?["content-state"]
        let pushed = try WireJSON.decode(LiveActivityState.self, from: Data(try WireJSON.encode(try #require(content))))
        #expect(pushed.hat == "reviewer" && pushed.backpressure?.text == "tests ✓" && push["errors"] == .array([]))

        await model.stop()
        #expect(model.registration == nil && model.serverNote == nil)
        #expect(try await client.liveActivities().isEmpty, "ended here: the server stops updating it")

        // A server without APNs credentials: the activity still works from the app, and says why the lock screen
        // will not follow while it is suspended.
        let plain = try await AppHarness.start()
        defer { Task { await plain.stop() } }
        let (liveWriter, other) = try await plain.writeRun(prompt: "Local only")
        defer { withExtendedLifetime(liveWriter) {} }
        let local = LiveActivityModel { _ in }
        local.server = LiveActivityServer(client: try plain.client(), environment: .sandbox)
        await local.toggle(try await plain.client().detail(other))
        await local.pushTokenReceived(token)
        #expect(local.isActive && local.registration == nil, "\(local.problem ?? "")")
        #expect(local.serverNote?.contains("only while Ralph Mobile is open") == true && local.serverNote?.contains("--apns-key") == true, "\(local.serverNote ?? "")")
    }

    @Test("a conversation on the lock screen: the real Claude CLI asks to run a command and the server pushes the waiting approval with an alert; allowed, it runs on")
    func serverPushesAConversation() async throws {
        let tmp = TemporaryDirectory("rm-la-chat")
        let (receiver, credentials) = try await APNsReceiver.started(in: tmp)
        let h = try await ChatHarness.start { $0.useLocalAPNs(credentials) }
        defer { Task { await h.stop(); await receiver.stop() } }
        let conversation = try await h.newConversation(title: "lock screen chat")
        let activity = LiveActivityModel { _ in }
        activity.server = LiveActivityServer(client: h.client, environment: .production)
        await activity.toggle(conversation, approvals: [])
        await activity.pushTokenReceived(Data(repeating: 0xAB, count: 32))
        let hex = String(repeating: "ab", count: 32)
        #expect(activity.registration?.subject == .conversation && activity.serverNote == nil)

        _ = try await h.client.sendMessage(conversation.id, text: model(["bash touch lock-screen.txt"], ["say done"]))
        let states: @Sendable () throws -> [(JSONObject, LiveActivityState)] = { try receiver.liveActivityPushes(to: hex).map { entry in
            let content = entry["payload"]?.objectValue?["aps"]?.objectValue?["content-state"] ?? .null
            return (entry, try WireJSON.decode(LiveActivityState.self, from: Data(try WireJSON.encode(content))))
        } }
        try await eventually(60, "the waiting approval pushed") { try states().contains { $0.1.phase == .waitingForApproval } }
        let (waiting, state) = try #require(try states().first { $0.1.phase == .waitingForApproval })
        #expect(state.waiting?.what == "Bash" && state.waiting?.detail?.contains("touch lock-screen.txt") == true, "\(state)")
        #expect(waiting["headers"]?.objectValue?["apns-priority"]?.stringValue == "10")
        #expect(waiting["payload"]?.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["title"]?.stringValue == "Waiting for approval: Bash")

        let pending = try #require(try await h.client.approvals(state: .pending, conversationID: conversation.id).first)
        _ = try await h.client.decide(pending.id, .allow)
        try await eventually(60, "the turn to finish and the activity to say so") {
            let all = try states()
            guard let at = all.firstIndex(where: { $0.1.phase == .waitingForApproval }) else { return false }
            return all[(at + 1)...].contains { $0.1.phase == .idle }
        }
        #expect(try states().allSatisfy { $0.0["errors"] == .array([]) })
        await activity.stop()
        #expect(try await h.client.liveActivities().isEmpty)
    }
}
