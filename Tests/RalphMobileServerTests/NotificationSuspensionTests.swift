import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// A run a lifecycle hook suspended waits for a person: it is told at once (urgent), Resume on the notification writes
/// ralph's `.ralph/resume-requested` and the loop goes on, and the notification is then withdrawn. Through the real
/// server with the fake-ralph double and a local Web Push receiver.
@Suite("Notifications: a run suspended by a hook", .serialized)
struct NotificationSuspensionTests {
    static let suspending = "iterations: 4\npace: 0.05\nsuspend_at: 2\nsuspend_hook: ci-gate\nsuspend_reason: tests failed"

    /// A server with a Web Push device, and a run a hook suspends: the push that told it (the caller stops `h`).
    static func suspendedRun() async throws -> (PushReceiver, SteeringHarness, StartSessionResponse, PushReceiver.Received) {
        let receiver = try await PushReceiver.start()
        let h = try await SteeringHarness.start { $0.notifications.vapidSubject = "mailto:ops@example.com" }
        do {
            h.config(Self.suspending)
            _ = try await NotificationDeliveryTests().webPushDevice(h, receiver)
            let run = try await h.startRun()
            let told = try await receiver.wait("the suspension", timeout: 20) { all in all.contains { (try? $0.message().kind) == .runSuspended } }
            return (receiver, h, run, try #require(told.first { (try? $0.message().kind) == .runSuspended }))
        } catch {
            h.stop()
            throw error
        }
    }

    @Test("a hook suspension is notified with Resume; Resume from the notification lets the loop go on; then it is withdrawn")
    func resumedFromTheNotification() async throws {
        let (receiver, h, run, entry) = try await Self.suspendedRun()
        defer { h.stop() }
        let suite = NotificationDeliveryTests()
        #expect(entry.headers["Urgency"] == "high", "a suspended run waits for a person")
        let message = try entry.message()
        #expect(message.title.hasSuffix("suspended by hook ci-gate") && message.path == "/#/sessions/\(run.id)", "\(message.title)")
        #expect(message.body.contains("tests failed") && message.body.contains("pre.iteration.start") && message.body.contains("waits until you resume"))
        let resume = try #require(message.actions.first { $0.action == "resume" })
        #expect(!resume.input && resume.title == "Resume")
        #expect(try await h.status(run.id).mode == .suspended)

        let done = try await suite.act(h, token: resume.token)
        #expect(done.status == 200, "\(done.text)")
        let response = try done.json(NotificationActionResponse.self)
        #expect(response.action == "resume" && response.subjectId == run.id && response.detail.hasPrefix("Resume requested"), "\(response)")
        #expect(try await suite.act(h, token: resume.token).status == 409, "a button works once")
        try await eventually(15, "the loop to go on and complete") { try await h.status(run.id).status == .completed }

        let all = try await receiver.wait("the withdrawal", timeout: 20) { all in
            all.contains { (try? $0.message()).map { $0.kind == .runSuspended && $0.withdraw == true } == true }
        }
        let sent = all.compactMap { try? $0.message() }
        let withdrawal = try #require(sent.first { $0.kind == .runSuspended && $0.withdraw == true })
        #expect(withdrawal.tag == message.tag && withdrawal.actions.isEmpty)
        #expect(sent.filter { $0.kind == .runSuspended && $0.withdraw != true }.count == 1, "one suspension, told once")
    }

    @Test("Resume pressed after the run was resumed elsewhere and ended says it is not running, and writes nothing")
    func resumedElsewhere() async throws {
        let (_, h, run, entry) = try await Self.suspendedRun()
        defer { h.stop() }
        let suite = NotificationDeliveryTests()
        let message = try entry.message()
        let resume = try #require(message.actions.first { $0.action == "resume" })

        #expect(try await h.post("/api/sessions/\(run.id)/resume", "").status == 200)
        try await eventually(15, "the loop to complete") { try await h.status(run.id).status == .completed }
        let late = try await suite.act(h, token: resume.token)
        #expect(late.status == 409 && late.text.contains("is not running"), "\(late.text)")
        #expect(!FileManager.default.fileExists(atPath: h.root + "/proj/.ralph/resume-requested"), "nothing written for a run that ended")
    }
}
