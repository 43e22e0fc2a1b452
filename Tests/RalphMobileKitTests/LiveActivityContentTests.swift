import Foundation
import RalphAPI
import Testing
import TestSupport

@testable import RalphMobileKit

/// The Live Activity's content model: built from the real server's session detail of a run written in ralph's layout,
/// and from a conversation with its waiting approvals; the tracker's start/update/end rule.
@Suite("Live Activity content", .serialized)
@MainActor
struct LiveActivityContentTests {
    @Test("a running run: iteration/total, hat, the latest event, backpressure; then a question; then its end, from the real server")
    func runFromServer() async throws {
        let h = try await KitHarness.start()
        defer { Task { await h.stop() } }
        let (writer, id) = try await h.writeRun(prompt: "Ship the lock screen\nwith details", maxIterations: 20)
        try writer.record(topic: "build.task", payload: "write it", iteration: 1, hat: "planner", triggered: "builder")
        try writer.record(topic: "build.blocked", payload: "tests: fail\nlint: pass", iteration: 2, hat: "builder", triggered: "builder")
        let client = h.client
        try await eventually(5, "the blocked build in the detail") { try await client.detail(id).backpressure?.topic == "build.blocked" }
        let detail = try await client.detail(id)
        let state = LiveActivityContent.state(detail)
        #expect(state.phase == .running && state.iteration == 2 && state.total == 20 && state.hat == "builder")
        #expect(state.lastEvent == "build.blocked" && state.lastEventAt != nil)
        #expect(state.backpressure == LiveActivityState.BackpressureSummary(passed: 1, failed: 1, text: "tests ✗ lint ✓", blocked: true))
        #expect(state.progressText == "2/20" && state.compactLeading == "2/20" && state.compactTrailing == "builder" && state.minimalText == "2")
        #expect(state.detailLine == "build.blocked")
        let subject = LiveActivitySubject.session(detail.session)
        #expect(subject == LiveActivitySubject(kind: .session, id: id, title: "Ship the lock screen", path: "/#/sessions/\(id)"))

        // The same state survives the JSON a liveactivity push would carry.
        let json = try WireJSON.encode(state)
        #expect(try WireJSON.decode(LiveActivityState.self, from: json) == state)
        #expect(String(decoding: json, as: UTF8.self).contains("\"last_event\":\"build.blocked\""))

        try writer.record(topic: "human.interact", payload: "Per key or per IP?", iteration: 3, hat: "reviewer")
        try await eventually(5, "the pending question") { try await client.detail(id).pendingQuestion != nil }
        let asking = LiveActivityContent.state(try await client.detail(id))
        #expect(asking.phase == .waitingForAnswer && asking.waiting?.what == "question" && asking.waiting?.detail == "Per key or per IP?")
        #expect(asking.waiting?.until != nil && asking.compactLeading == "!" && asking.compactTrailing == "Question")
        #expect(asking.detailLine == "Question: Per key or per IP?")

        try writer.terminate(reason: "max_iterations", status: "failed", iterations: 3, exitCode: 2)
        try await eventually(5, "the run to end") { try await client.status(id).mode == .complete }
        let ended = LiveActivityContent.state(try await client.detail(id))
        #expect(ended.phase == .failed && ended.phase.isFinal && ended.endReason == "max_iterations" && ended.waiting == nil)
        #expect(ended.phaseTitle == "Failed (max iterations)" && ended.minimalText == "✗")
    }

    static func approval(_ id: String, conversation: String, tool: String, command: String, at: String, state: ApprovalState = .pending) -> Approval {
        Approval(
            id: id, conversationId: conversation, turnId: "t1", toolUseId: nil, toolName: tool, input: .object(JSONObject([("command", .string(command))])),
            state: state, createdAt: at)
    }

    static func conversation(status: ConversationStatus, pending: Int = 0) -> Conversation {
        Conversation(
            id: "c1", title: "Fix the login", cwd: "app", backend: "claude", createdAt: "2026-11-23T10:00:00.000Z", updatedAt: "2026-11-23T10:00:00.000Z",
            lastActivityAt: "2026-11-23T10:05:00.000Z", status: status, pendingApprovals: pending, lastMessagePreview: "Running the tests now\nand then")
    }

    @Test("a conversation waiting for approval names the oldest pending tool and counts them; others' and decided ones do not count")
    func conversation() {
        let approvals = [
            Self.approval("a2", conversation: "c1", tool: "Write", command: "x", at: "2026-11-23T10:04:00.000Z"),
            Self.approval("a1", conversation: "c1", tool: "Bash", command: "npm test\n--watch", at: "2026-11-23T10:03:00.000Z"),
            Self.approval("a0", conversation: "c1", tool: "Bash", command: "rm -rf /", at: "2026-11-23T10:01:00.000Z", state: .denied),
            Self.approval("b1", conversation: "other", tool: "Bash", command: "ls", at: "2026-11-23T10:00:00.000Z"),
        ]
        let state = LiveActivityContent.state(Self.conversation(status: .awaitingApproval, pending: 2), approvals: approvals)
        #expect(state.phase == .waitingForApproval && state.waiting == LiveActivityState.Waiting(what: "Bash", detail: "npm test", count: 2))
        #expect(state.phaseTitle == "2 approvals waiting" && state.detailLine == "Bash: npm test" && state.compactTrailing == "Bash")
        #expect(state.lastEvent == "Running the tests now")

        let running = LiveActivityContent.state(Self.conversation(status: .running), approvals: [])
        #expect(running.phase == .running && running.waiting == nil && running.progressText == "" && running.compactLeading == "Running")
        let idle = LiveActivityContent.state(Self.conversation(status: .idle), approvals: [])
        #expect(idle.phase == .idle)
        let unnamed = LiveActivityContent.state(Self.conversation(status: .awaitingApproval, pending: 1), approvals: [])
        #expect(unnamed.phase == .waitingForApproval && unnamed.waiting == LiveActivityState.Waiting(what: "approval", detail: nil, count: 1))
        #expect(LiveActivitySubject.conversation(Self.conversation(status: .idle)).path == "/#/chats/c1")
    }

    @Test("the tracker starts once, sends only changes, ends with the final state, and refuses to start what is over")
    func tracker() throws {
        var tracker = LiveActivityTracker()
        let subject = LiveActivitySubject(kind: .session, id: "r1", title: "Run", path: "/#/sessions/r1")
        let running = LiveActivityState(phase: .running, iteration: 1, total: 5, hat: "planner")
        #expect(tracker.handle(running) == .none, "nothing before a start")
        #expect(try tracker.start(subject, running) == .start(subject, running))
        #expect(throws: LiveActivityTracker.StartProblem.alreadyRunning) { try tracker.start(subject, running) }
        #expect(tracker.handle(running) == .none, "unchanged: not sent again")
        var next = running
        next.iteration = 2
        #expect(tracker.handle(next) == .update(next))
        var done = next
        done.phase = .completed
        #expect(tracker.handle(done) == .end(done) && !tracker.isActive)
        #expect(tracker.handle(next) == .none, "ended: nothing more")
        #expect(throws: LiveActivityTracker.StartProblem.alreadyOver(.completed)) { try tracker.start(subject, done) }
        #expect(try tracker.start(subject, next) == .start(subject, next))
        #expect(tracker.stop() == .end(next))
        #expect(tracker.stop() == .none)
    }
}
