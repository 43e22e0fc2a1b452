import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Notifications from runs to local receivers that speak each protocol (``PushReceiver``: Web Push decrypted with
/// Python's http_ece and its VAPID token checked with `cryptography`, webhooks with their HMAC checked, ntfy), and the
/// actions they carry, against the real server and the fake-ralph double.
@Suite("Notifications: delivery and actions", .serialized)
struct NotificationDeliveryTests {
    static let question = "iterations: 3\npace: 0.3\nask: \"Postgres or SQLite?\"\nask_at: 2"

    func register(_ h: SteeringHarness, _ body: String) async throws -> NotificationDevice {
        let result = try await h.post("/api/notifications/devices", body)
        guard result.status == 201 else { throw TestFailure("registration refused: \(result.status) \(result.text)") }
        return try result.json(NotificationDevice.self)
    }

    func webPushDevice(_ h: SteeringHarness, _ receiver: PushReceiver, extra: String = "") async throws -> NotificationDevice {
        let subscription = String(decoding: try WireJSON.encode(try await receiver.subscription()), as: UTF8.self)
        return try await register(h, #"{"name":"phone","channel":"web_push","web_push":\#(subscription)\#(extra)}"#)
    }

    func act(_ h: SteeringHarness, token: String, text: String? = nil) async throws -> HTTPResult {
        let body = String(decoding: try WireJSON.encode(NotificationActionRequest(token: token, text: text)), as: UTF8.self)
        return try await h.post("/api/notifications/actions", body)
    }

    @Test("a run's question reaches a Web Push endpoint encrypted and VAPID-signed; Answer from the notification reaches ralph once; the notification is then withdrawn, and the run's end told")
    func questionAnsweredFromTheNotification() async throws {
        let receiver = try await PushReceiver.start()
        let h = try await SteeringHarness.start { $0.notifications.vapidSubject = "mailto:ops@example.com" }
        defer { h.stop() }
        h.config(Self.question, robotTimeout: 60)
        _ = try await webPushDevice(h, receiver)
        let run = try await h.startRun()

        let asked = try await receiver.wait("the question", timeout: 20) { all in all.contains { (try? $0.message().kind) == .question } }
        let entry = try #require(asked.first { (try? $0.message().kind) == .question })
        #expect(entry.error == nil && entry.status == 201)
        #expect(entry.headers["Urgency"] == "high" && entry.headers["Content-Encoding"] == "aes128gcm")
        #expect(entry.headers["Topic"]?.count == 32 && entry.headers["TTL"] == "86400")
        #expect(entry.vapidClaims?.objectValue?["sub"]?.stringValue == "mailto:ops@example.com")
        let message = try entry.message()
        #expect(message.body == "Postgres or SQLite?" && message.path == "/#/sessions/\(run.id)" && message.expiresAt != nil)
        let answer = try #require(message.actions.first { $0.action == "answer" })
        #expect(answer.input && answer.url == "/api/notifications/actions")

        // An answer needs text: refused, and the button still works after.
        #expect(try await act(h, token: answer.token).status == 400)
        let done = try await act(h, token: answer.token, text: "SQLite")
        #expect(done.status == 200, "\(done.text)")
        let replay = try await act(h, token: answer.token, text: "Postgres")
        #expect(replay.status == 409 && replay.text.contains("action_token_used"))
        #expect(try await act(h, token: "rmact_" + String(repeating: "0", count: 64)).status == 404)

        let stream = try await h.stream(run.id)
        let messages = try await stream.messagesUntilClosed(timeout: 20)
        let responses = messages.filter { $0.json["topic"] as? String == "human.response" }
        #expect(responses.count == 1 && responses.first?.json["payload"] as? String == "SQLite")

        let all = try await receiver.wait("the withdrawal and the end", timeout: 20) { all in
            let kinds = all.compactMap { try? $0.message() }
            return kinds.contains { $0.withdraw == true } && kinds.contains { $0.kind == .runFinished }
        }
        let messagesSent = all.compactMap { try? $0.message() }
        let withdrawal = try #require(messagesSent.first { $0.withdraw == true })
        #expect(withdrawal.tag == message.tag && withdrawal.actions.isEmpty)
        let end = try #require(messagesSent.first { $0.kind == .runFinished })
        #expect(end.title.hasSuffix("completed") && end.subjectId == run.id)
        #expect(all.allSatisfy { $0.error == nil })
    }

    @Test("a webhook that fails is retried with backoff under the same idempotency key and signature scheme; the log shows every attempt")
    func webhookRetries() async throws {
        let receiver = try await PushReceiver.start()
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        let secret = "s3cret-0123456789abcdef"
        let url = try await receiver.webhook(secret: secret)
        try await receiver.script(URL(string: url)!.path, statuses: [503, 500])
        let device = try await register(h, #"{"name":"hook","channel":"webhook","kinds":["run_finished"],"webhook":{"url":"\#(url)","secret":"\#(secret)"}}"#)
        #expect(device.webhookSecret == nil, "a secret the caller chose is not echoed")
        h.config("iterations: 1\npace: 0.05")
        _ = try await h.startRun()
        let all = try await receiver.wait("three attempts", timeout: 20) { $0.filter { $0.channel == "webhook" }.count >= 3 }
        let hooks = all.filter { $0.channel == "webhook" }
        #expect(hooks.map(\.status) == [503, 500, 200])
        #expect(hooks.allSatisfy { $0.error == nil }, "every request is signed with the secret")
        #expect(Set(hooks.map { $0.headers["Idempotency-Key"] ?? "" }).count == 1)
        #expect(hooks[2].at - hooks[1].at >= 1.5, "the second retry waits longer than the first")
        // The receiver sees the third request before the server has read its answer and logged the delivery.
        let base = h.server.base
        try await eventually(10, "the third attempt logged") {
            try await HTTP.get(base + "/api/notifications/deliveries").json(NotificationDeliveryList.self).deliveries.count >= 3
        }
        let log = try await HTTP.get(h.server.base + "/api/notifications/deliveries").json(NotificationDeliveryList.self)
        #expect(log.deliveries.prefix(3).map(\.outcome) == ["delivered", "retrying", "retrying"])
        #expect(log.deliveries.first?.attempt == 3)
    }

    @Test("a subscription the push service says is gone (410) is removed, and the log says why")
    func goneSubscriptionRemoved() async throws {
        let receiver = try await PushReceiver.start()
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        let device = try await webPushDevice(h, receiver)
        let subscription = try await HTTP.get(h.server.base + "/api/notifications/devices").json(NotificationDeviceList.self)
        #expect(subscription.devices.map(\.id) == [device.id])
        try await receiver.script("/push/1", statuses: [410])
        h.config("iterations: 1\npace: 0.05")
        _ = try await h.startRun()
        try await eventually(20, "the device to be removed") {
            try await HTTP.get(h.server.base + "/api/notifications/devices").json(NotificationDeviceList.self).devices.isEmpty
        }
        let log = try await HTTP.get(h.server.base + "/api/notifications/deliveries").json(NotificationDeliveryList.self)
        #expect(log.deliveries.first?.outcome == "expired" && log.deliveries.first?.status == 410)
    }

    @Test("ntfy: a question is published with a click link and an Answer is not a button (it needs text); a finished run names its status")
    func ntfyPublishing() async throws {
        let receiver = try await PushReceiver.start()
        let h = try await SteeringHarness.start { $0.notifications.publicURL = "https://ralph.example.test" }
        defer { h.stop() }
        _ = try await register(h, #"{"name":"watch","channel":"ntfy","ntfy":{"url":"\#(receiver.base)/ralph-test","token":"tk_123"}}"#)
        h.config(Self.question, robotTimeout: 60)
        let run = try await h.startRun()
        let all = try await receiver.wait("the question on ntfy", timeout: 20) { $0.contains { $0.channel == "ntfy" } }
        let published = try #require(all.first { $0.channel == "ntfy" }?.payload?.objectValue)
        #expect(published["topic"]?.stringValue == "ralph-test")
        #expect(published["priority"]?.intValue == 4)
        #expect(published["click"]?.stringValue == "https://ralph.example.test/#/sessions/\(run.id)")
        #expect(published["actions"] == nil)
        #expect(all.first { $0.channel == "ntfy" }?.headers["Authorization"] == "Bearer tk_123")
    }

    @Test("a person looking at the run is not buzzed for it (logged as skipped); once they leave, they are")
    func presenceSkips() async throws {
        let receiver = try await PushReceiver.start()
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        let device = try await webPushDevice(h, receiver)
        h.config("iterations: 4\npace: 0.5\nask: \"Ship it?\"\nask_at: 3", robotTimeout: 3)
        let run = try await h.startRun()
        let watching = try await h.post("/api/notifications/presence", #"{"foreground":true,"screen":"session","subject_id":"\#(run.id)"}"#)
        #expect(watching.status == 204)
        try await eventually(20, "the question to be skipped") {
            let log = try await HTTP.get(h.server.base + "/api/notifications/deliveries").json(NotificationDeliveryList.self)
            return log.deliveries.contains { $0.outcome == "skipped" && $0.kind == .question && $0.deviceId == device.id }
        }
        #expect(try await receiver.received().isEmpty)
        _ = try await h.post("/api/notifications/presence", #"{"foreground":false}"#)
        let all = try await receiver.wait("the end of the run", timeout: 20) { $0.contains { (try? $0.message().kind) == .runFinished } }
        #expect(!all.contains { (try? $0.message().kind) == .question })
    }

    @Test("a content-free device is told only what kind of thing happened; inside its quiet hours the message is marked quiet")
    func privacyAndQuietHours() async throws {
        let receiver = try await PushReceiver.start()
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        _ = try await webPushDevice(h, receiver, extra: #","privacy":"private","quiet_hours":{"start":"00:00","end":"23:59","time_zone":"UTC"}"#)
        h.config(Self.question, robotTimeout: 60)
        _ = try await h.startRun()
        let all = try await receiver.wait("the question", timeout: 20) { all in all.contains { (try? $0.message().kind) == .question } }
        let message = try #require(all.compactMap { try? $0.message() }.first { $0.kind == .question })
        #expect(message.title == "A run is asking you something" && !message.body.contains("Postgres"))
        #expect(message.quiet == true)
        #expect(message.actions.map(\.action) == ["answer"], "the button needs no content")
    }

    @Test("registrations are checked: bad keys, a missing channel field, bad quiet hours, ntfy or webhooks from a viewer")
    func registrationChecks() async throws {
        let h = try await SteeringHarness.start { $0.apiKey = "admin-key-0123456789abcdef" }
        defer { h.stop() }
        let admin = "admin-key-0123456789abcdef"
        func status(_ body: String, key: String) async throws -> (Int, String) {
            let result = try await h.post("/api/notifications/devices", body, key: key)
            return (result.status, result.text)
        }
        let badKey = try await status(#"{"name":"p","channel":"web_push","web_push":{"endpoint":"https://push.example/x","keys":{"p256dh":"AAAA","auth":"AAAA"}}}"#, key: admin)
        #expect(badKey.0 == 400 && badKey.1.contains("p256dh"))
        let plainHTTP = try await status(#"{"name":"p","channel":"web_push","web_push":{"endpoint":"http://push.example/x","keys":{"p256dh":"AAAA","auth":"AAAA"}}}"#, key: admin)
        #expect(plainHTTP.0 == 400 && plainHTTP.1.contains("https"))
        let missing = try await status(#"{"name":"p","channel":"ntfy"}"#, key: admin)
        #expect(missing.0 == 400 && missing.1.contains("needs its ntfy field"))
        let quiet = try await status(#"{"name":"p","channel":"ntfy","ntfy":{"url":"https://ntfy.sh/t"},"quiet_hours":{"start":"25:00","end":"07:00"}}"#, key: admin)
        #expect(quiet.0 == 400 && quiet.1.contains("quiet_hours.start"))
        let created = try await HTTP.request(h.server.base + "/api/keys", method: .POST, headers: [("X-Api-Key", admin)], body: #"{"role":"viewer"}"#)
        let viewer = try #require((created.object as? [String: Any])?["secret"] as? String)
        let refused = try await status(#"{"name":"p","channel":"webhook","webhook":{"url":"https://hooks.example/x"}}"#, key: viewer)
        #expect(refused.0 == 403)
        let hook = try await status(#"{"name":"p","channel":"webhook","webhook":{"url":"https://hooks.example/x"}}"#, key: admin)
        #expect(hook.0 == 201 && hook.1.contains("webhook_secret"), "a generated secret is returned once")
        // The viewer sees only its own devices.
        let seen = try await HTTP.get(h.server.base + "/api/notifications/devices", headers: [("X-Api-Key", viewer)]).json(NotificationDeviceList.self)
        #expect(seen.devices.isEmpty)
        let all = try await HTTP.get(h.server.base + "/api/notifications/devices", headers: [("X-Api-Key", admin)]).json(NotificationDeviceList.self)
        #expect(all.devices.count == 1 && all.devices.first?.webhookSecret == nil)
        let settings = try await HTTP.get(h.server.base + "/api/notifications", headers: [("X-Api-Key", viewer)]).json(NotificationSettings.self)
        #expect(settings.channels.first { $0.channel == .apns }?.reason?.contains("--apns-key") == true)
        #expect(settings.vapidPublicKey.count == 87)
        let health = try await HTTP.get(h.server.base + "/api/health").json(HealthResponse.self)
        #expect(health.capabilities.contains("notify_unavailable:apns") && health.capabilities.contains("notify:web_push"))

        // Registering the same target again keeps the choices made since, unless it gives new ones.
        let id = try #require(all.devices.first?.id)
        let patched = try await HTTP.request(
            h.server.base + "/api/notifications/devices/\(id)", method: .PATCH, headers: [("X-Api-Key", admin)],
            body: #"{"kinds":["approval"],"privacy":"private"}"#)
        #expect(patched.status == 200)
        let again = try await status(#"{"name":"p2","channel":"webhook","webhook":{"url":"https://hooks.example/x"}}"#, key: admin)
        #expect(again.0 == 201)
        let kept = try await HTTP.get(h.server.base + "/api/notifications/devices", headers: [("X-Api-Key", admin)]).json(NotificationDeviceList.self)
        #expect(kept.devices.map(\.id) == [id] && kept.devices.first?.kinds == [.approval] && kept.devices.first?.privacy == .private)
        #expect(kept.devices.first?.name == "p2")
    }
}
