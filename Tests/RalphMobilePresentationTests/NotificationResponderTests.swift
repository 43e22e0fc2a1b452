import Foundation
import RalphAPI
import RalphMobileKit
import Testing
import TestSupport

@testable import RalphMobilePresentation

/// What the app does with a received notification: the screen its path opens, the buttons it offers, and a button
/// carried out through the API — against the real server, with a tool approval asked for by the real Claude CLI and
/// the notification taken from a local webhook receiver (the same message an APNs payload's `ralph` carries).
@Suite("Notification responder", .serialized)
@MainActor
struct NotificationResponderTests {
    static func message(kind: NotificationKind = .approval, path: String = "/#/chats/c1", actions: [NotificationAction]) -> NotificationMessage {
        NotificationMessage(
            id: "m1", kind: kind, subject: "conversation", subjectId: "c1", title: "Approval waiting", body: "Bash: ls", tag: "approval-a1", path: path,
            actions: actions, createdAt: "2026-11-23T10:00:00.000Z")
    }

    @Test("paths open the matching screen; an unknown path opens the sessions list")
    func routes() {
        #expect(NotificationRoute(path: "/#/sessions/0123abcd") == .session("0123abcd"))
        #expect(NotificationRoute(path: "/#/chats/c-1") == .conversation("c-1"))
        #expect(NotificationRoute(path: "/#/conversations/c-2") == .conversation("c-2"))
        #expect(NotificationRoute(path: "/#/approvals") == .section(.approvals))
        #expect(NotificationRoute(path: "/#/chats") == .section(.conversations))
        #expect(NotificationRoute(path: "/#/settings") == .section(.settings))
        #expect(NotificationRoute(path: "/#/sessions") == .section(.sessions))
        #expect(NotificationRoute(path: "/#/something-new/x") == .section(.sessions))
        #expect(NotificationRoute(path: "/#/chats/c-1").section == .conversations)
    }

    @Test("categories: RALPH_APPROVAL (Allow, Deny), RALPH_QUESTION (Answer with text), RALPH_SUSPENDED (Resume); none without actions")
    func categories() {
        #expect(NotificationCategory.all.map(\.identifier) == ["RALPH_APPROVAL", "RALPH_QUESTION", "RALPH_SUSPENDED"])
        #expect(NotificationCategory.approval.buttons.map(\.title) == ["Allow", "Deny"])
        #expect(NotificationCategory.approval.buttons.last?.destructive == true)
        #expect(NotificationCategory.question.buttons.map(\.textInput) == [true])
        let allow = NotificationAction(action: "allow", title: "Allow", token: "rmact_x", url: "/api/notifications/actions", input: false)
        #expect(NotificationCategory.of(Self.message(actions: [allow])) == .approval)
        #expect(NotificationCategory.of(Self.message(kind: .question, actions: [allow])) == .question)
        #expect(NotificationCategory.of(Self.message(actions: [])) == nil)
        #expect(NotificationCategory.button("RALPH_ANSWER")?.action == "answer")
        let resume = NotificationAction(action: "resume", title: "Resume", token: "rmact_y", url: "/api/notifications/actions", input: false)
        #expect(NotificationCategory.of(Self.message(kind: .runSuspended, actions: [resume])) == .suspended)
        #expect(NotificationCategory.button("RALPH_RESUME")?.action == "resume")
        #expect(NotificationCategory.of(Self.message(kind: .runFinished, actions: [resume])) == nil, "a kind with no category shows no buttons")
    }

    @Test("userInfo: the ralph dictionary is read; a foreign or broken payload is a clear error")
    func userInfo() throws {
        let message = Self.message(actions: [NotificationAction(action: "allow", title: "Allow", token: "rmact_x", url: "/api/notifications/actions", input: false)])
        let ralph = try JSONSerialization.jsonObject(with: try WireJSON.encode(message))
        let aps: [String: Any] = ["alert": ["title": "Approval waiting"], "category": "RALPH_APPROVAL"]
        let userInfo: [AnyHashable: Any] = ["aps": aps, "ralph": ralph]
        let received = try ReceivedNotification(userInfo: userInfo)
        #expect(received.message == message && received.route == .conversation("c1") && received.category == .approval && !received.withdraws)
        #expect(throws: NotificationPayloadError.noRalphPayload) { try ReceivedNotification(userInfo: ["aps": [String: Any]()]) }
        #expect { try ReceivedNotification(userInfo: ["ralph": ["id": 1] as [String: Any]]) } throws: { error in
            guard case NotificationPayloadError.malformed = error else { return false }
            return "\(error)".contains("cannot read")
        }
    }

    @Test("a button without its action, an answer without text, no server: said, nothing sent")
    func refusedLocally() async {
        let allow = NotificationAction(action: "allow", title: "Allow", token: "rmact_x", url: "/api/notifications/actions", input: false)
        let answer = NotificationAction(action: "answer", title: "Answer", token: "rmact_y", url: "/api/notifications/actions", input: true)
        let responder = NotificationResponder { nil }
        #expect(await responder.perform("RALPH_DENY", on: ReceivedNotification(message: Self.message(actions: [allow])))
            == .failed("This notification carries no Deny action (a summary of several, or a key that may not decide). Open Ralph Mobile to decide."))
        let question = ReceivedNotification(message: Self.message(kind: .question, actions: [answer]))
        #expect(await responder.perform("RALPH_ANSWER", text: "  ", on: question) == .failed("Type an answer before sending it."))
        #expect(await responder.perform("RALPH_ALLOW", on: ReceivedNotification(message: Self.message(actions: [allow])))
            == .failed("Not connected to a server: open Ralph Mobile to decide."))
        #expect(await responder.perform("NOPE", on: question) == .failed("This app has no button 'NOPE'."))
        #expect(responder.open(question) == .conversation("c1") && responder.pendingRoute == .conversation("c1"))
    }

    @Test("Allow from the notification decides the real approval once; pressing it again says it was used; an unknown token is named")
    func allowFromNotification() async throws {
        let h = try await ChatHarness.start(apiKey: "rmk_responder_admin_0123456789ab")
        let (phone, _) = try await h.client(role: .operator)
        let receiver = try await LocalPushReceiver.start()
        defer { Task { await receiver.stop(); await h.stop() } }
        let secret = "responder-test-secret-0123456789"
        let url = try await receiver.hook(secret: secret)
        let path = String(url.dropFirst(receiver.origin.count))
        _ = try await phone.registerDevice(RegisterDeviceRequest(name: "hook", channel: .webhook, kinds: [.approval], webhook: WebhookTarget(url: url, secret: secret)))

        let conversation = try await h.newConversation(title: "notify")
        _ = try await h.client.sendMessage(conversation.id, text: model(["bash touch notified.txt"], ["say done"]))
        let messages = try await receiver.messages(at: path, count: 1, timeout: 60)
        let message = try #require(messages.first { $0.kind == .approval && !$0.actions.isEmpty }, "an approval notification with buttons: \(messages)")
        let received = ReceivedNotification(message: message)
        #expect(received.route == .conversation(conversation.id) && received.category == .approval)
        #expect(message.actions.map(\.action) == ["allow", "deny"])

        // The phone's own client (an operator key), as in the app.
        let responder = NotificationResponder { phone }
        let outcome = await responder.perform("RALPH_ALLOW", on: received)
        #expect(outcome == .done("Allowed: Bash"), "\(outcome)")
        #expect(responder.lastOutcome == outcome)
        let client = h.client
        try await eventually(30, "the approval decided as allowed") {
            try await client.approvals(state: .allowed, conversationID: conversation.id).contains { $0.decidedBy?.hasPrefix("notification") == true }
        }
        let again = await responder.perform("RALPH_ALLOW", on: received)
        #expect(again == .failed("Already done: a notification's button works once. Open Ralph Mobile to see where things stand."))

        var forged = message
        forged.actions = message.actions.map { var a = $0; a.token = "rmact_forged_000000"; return a }
        #expect(await responder.perform("RALPH_DENY", on: ReceivedNotification(message: forged))
            == .failed("The server does not know this action (the phone was removed from its devices, or its data was reset). Open Ralph Mobile to decide."))
    }
}

extension NotificationResponderTests {
    @Test("a Live Activity's link opens its run or conversation; other links are not ours")
    func links() throws {
        let subject = LiveActivitySubject(kind: .session, id: "0123abcd", title: "Run", path: "/#/sessions/0123abcd")
        var components = URLComponents()
        components.scheme = "ralphmobile"
        components.host = "open"
        components.queryItems = [URLQueryItem(name: "path", value: subject.path)]
        let url = try #require(components.url)
        #expect(NotificationRoute(url: url) == .session("0123abcd"))
        #expect(NotificationRoute(url: URL(string: "ralphmobile://open?path=/%23/chats/c1")!) == .conversation("c1"))
        #expect(NotificationRoute(url: URL(string: "https://example.com/open?path=/%23/chats/c1")!) == nil)
        #expect(NotificationRoute.session("x").opensDetail && !NotificationRoute.section(.approvals).opensDetail)
    }
}

extension NotificationResponderTests {
    @Test("Answer from a question's notification answers the run's RObot question with the typed text, once")
    func answerFromNotification() async throws {
        let h = try await AppHarness.start(apiKey: "rmk_answer_admin_0123456789abcd")
        let receiver = try await LocalPushReceiver.start()
        defer { Task { await receiver.stop(); await h.stop() } }
        let phone = try h.client(key: try await h.createKey(.operator, name: "phone").secret)
        let secret = "answer-test-secret-0123456789ab"
        let url = try await receiver.hook(secret: secret)
        let path = String(url.dropFirst(receiver.origin.count))
        _ = try await phone.registerDevice(RegisterDeviceRequest(name: "hook", channel: .webhook, kinds: [.question], webhook: WebhookTarget(url: url, secret: secret)))

        let (writer, id) = try await h.writeRun(prompt: "Rate limits")
        try writer.record(topic: "human.interact", payload: "Per key or per IP?", iteration: 1, hat: "reviewer")
        let messages = try await receiver.messages(at: path, count: 1, timeout: 30)
        let message = try #require(messages.first { $0.kind == .question && !$0.actions.isEmpty }, "a question with its Answer button: \(messages)")
        let received = ReceivedNotification(message: message)
        #expect(received.category == .question && received.route == .session(id))
        #expect(message.actions.map(\.action) == ["answer"] && message.actions.first?.input == true)

        let responder = NotificationResponder { phone }
        #expect(await responder.perform("RALPH_ANSWER", text: "", on: received) == .failed("Type an answer before sending it."))
        let outcome = await responder.perform("RALPH_ANSWER", text: "Per key", on: received)
        guard case .done(let words) = outcome else { Issue.record("expected an answer, got \(outcome)"); return }
        #expect(words.hasPrefix("Answered"))
        let client = try h.client()
        try await eventually(10, "the question answered") { try await client.detail(id).pendingQuestion == nil }
        #expect(await responder.perform("RALPH_ANSWER", text: "Per IP", on: received)
            == .failed("Already done: a notification's button works once. Open Ralph Mobile to see where things stand."))
        writer.releaseLock()
    }
}
