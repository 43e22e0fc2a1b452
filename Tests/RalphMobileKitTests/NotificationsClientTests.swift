import Foundation
import RalphAPI
import Testing
import TestSupport

@testable import RalphMobileKit

/// The SDK's notifications API against the real server: devices of each channel, a test delivered to a local
/// receiver (`Tests/Receivers/push_receiver.py`, which checks the webhook's signature), presence, actions, the log.
@Suite("Notifications API", .serialized)
@MainActor
struct NotificationsClientTests {
    static let adminKey = "rmk_notify_admin_0123456789abcdef"
    static let token = String(repeating: "ab12", count: 16)

    func keyed(_ h: KitHarness, _ role: Role) async throws -> RalphClient {
        let created = try await h.client.createKey(role: role, name: "notify-\(role.rawValue)")
        return try RalphClient(baseURL: h.server.base, apiKey: created.secret)
    }

    @Test("settings say APNs is not configured; a viewer registers, renames and removes its APNs device; other keys do not see it")
    func apnsDevice() async throws {
        let h = try await KitHarness.start(apiKey: Self.adminKey)
        defer { Task { await h.stop() } }
        let viewer = try await keyed(h, .viewer)
        let other = try await keyed(h, .operator)

        let settings = try await viewer.notificationSettings()
        let apns = try #require(settings.channels.first { $0.channel == .apns })
        #expect(!apns.available && apns.reason?.isEmpty == false, "no APNs credentials: \(String(describing: apns.reason))")
        #expect(!settings.vapidPublicKey.isEmpty && settings.coalesceSeconds > 0)

        let request = RegisterDeviceRequest(
            name: "iPhone", channel: .apns, kinds: [.approval, .question], privacy: .private,
            apns: APNsDevice(deviceToken: Self.token, environment: .sandbox))
        let device = try await viewer.registerDevice(request)
        #expect(device.channel == .apns && device.name == "iPhone" && device.kinds == [.approval, .question] && device.privacy == .private)
        #expect(device.webhookSecret == nil)
        let again = try await viewer.registerDevice(request)
        #expect(again.id == device.id, "the same token registered again is the same device")
        #expect(try await viewer.notificationDevices().map(\.id) == [device.id])
        #expect(try await other.notificationDevices().isEmpty, "another key's devices are not shown")
        #expect(try await h.client.notificationDevices().map(\.id).contains(device.id), "an admin sees every device")

        let quiet = QuietHours(start: "22:00", end: "07:00", timeZone: "Europe/Paris")
        let renamed = try await viewer.updateDevice(device.id, UpdateDeviceRequest(name: "Work phone", kinds: NotificationKind.allCases, quietHours: quiet))
        #expect(renamed.name == "Work phone" && renamed.kinds == NotificationKind.allCases && renamed.quietHours == quiet && renamed.privacy == .private)
        let cleared = try await viewer.updateDevice(device.id, UpdateDeviceRequest(privacy: .full, clearQuietHours: true))
        #expect(cleared.quietHours == nil && cleared.privacy == .full && cleared.name == "Work phone")
        await #expect(throws: RalphClientError.invalidBody("quiet_hours.start must be HH:MM (24-hour), not '25:00'")) {
            try await viewer.updateDevice(device.id, UpdateDeviceRequest(quietHours: QuietHours(start: "25:00", end: "07:00")))
        }

        await #expect { try await other.removeDevice(device.id) } throws: { error in
            guard case RalphClientError.notFound = error else { return false }
            return true
        }
        let removed = try await viewer.removeDevice(device.id)
        #expect(removed.id == device.id)
        #expect(try await viewer.notificationDevices().isEmpty)
        await #expect { try await viewer.removeDevice(device.id) } throws: { error in
            guard case RalphClientError.notFound(_, let detail) = error else { return false }
            return detail.contains(device.id)
        }
        // A bad token and a viewer asking for a URL the server would call are refused with the server's words.
        await #expect { try await viewer.registerDevice(RegisterDeviceRequest(name: "x", channel: .apns, apns: APNsDevice(deviceToken: "zz", environment: .production))) }
            throws: { error in
                guard case RalphClientError.invalidBody(let why) = error else { return false }
                return why.contains("device_token")
            }
        await #expect { try await viewer.registerDevice(RegisterDeviceRequest(name: "x", channel: .ntfy, ntfy: NtfyTopic(url: "https://ntfy.sh/abc"))) }
            throws: { error in
                guard case RalphClientError.forbidden = error else { return false }
                return true
            }
    }

    @Test("webhook: the generated secret is shown once, a test arrives signed, a refused test says why; the log is the admin's")
    func webhookAndLog() async throws {
        let h = try await KitHarness.start(apiKey: Self.adminKey)
        let receiver = try await LocalPushReceiver.start()
        defer { Task { await receiver.stop(); await h.stop() } }
        let op = try await keyed(h, .operator)

        // The receiver numbers its hooks from 1: register the URL it will give, then tell it the server's secret.
        let url = receiver.origin + "/hook/1"
        let device = try await op.registerDevice(RegisterDeviceRequest(name: "CI hook", channel: .webhook, webhook: WebhookTarget(url: url)))
        let secret = try #require(device.webhookSecret, "the generated secret, once")
        #expect(secret.count >= 32)
        #expect(try await receiver.hook(secret: secret) == url)
        #expect(try await op.notificationDevices().first?.webhookSecret == nil, "never shown again")
        #expect(device.target == url)

        let delivery = try await op.testDevice(device.id)
        #expect(delivery.outcome == "delivered" && delivery.status == 200, "\(delivery)")
        let messages = try await receiver.messages(at: "/hook/1", count: 1)
        #expect(messages.count == 1, "the receiver checked the HMAC signature")
        #expect(messages.first?.title == "Ralph Mobile test" && messages.first?.id == delivery.messageId && messages.first?.subject == "test")

        try await receiver.script("/hook/1", statuses: [500])
        let refused = try await op.testDevice(device.id)
        #expect(refused.outcome == "failed" && refused.status == 500 && refused.detail?.contains("HTTP 500") == true, "\(refused)")

        let log = try await h.client.notificationDeliveries(limit: 10)
        #expect(log.map(\.messageId).contains(delivery.messageId) && log.map(\.messageId).contains(refused.messageId))
        #expect(try await h.client.notificationDeliveries(limit: 10, deviceID: "nope").isEmpty)
        await #expect { try await op.notificationDeliveries() } throws: { error in
            guard case RalphClientError.forbidden = error else { return false }
            return true
        }
        await #expect(throws: RalphClientError.invalidParameter("limit must be 1 to 1000")) { try await h.client.notificationDeliveries(limit: 0) }
    }

    @Test("ntfy: a topic on the local receiver gets the test as ntfy JSON")
    func ntfy() async throws {
        let h = try await KitHarness.start(apiKey: Self.adminKey)
        let receiver = try await LocalPushReceiver.start()
        defer { Task { await receiver.stop(); await h.stop() } }
        let device = try await h.client.registerDevice(
            RegisterDeviceRequest(name: "watch", channel: .ntfy, ntfy: NtfyTopic(url: receiver.origin + "/ntfy/ralph-test", token: "tk_secret")))
        #expect(device.target.hasSuffix("/ntfy/ralph-test"))
        let delivery = try await h.client.testDevice(device.id)
        #expect(delivery.outcome == "delivered", "\(delivery)")
        let entries = try await receiver.received(count: 1, timeout: 10).filter { $0["channel"] as? String == "ntfy" }
        let payload = try #require(entries.first?["payload"] as? [String: Any])
        #expect(payload["topic"] as? String == "ralph-test" && payload["title"] as? String == "Ralph Mobile test")
        let headers = entries.first?["headers"] as? [String: Any]
        #expect(headers?["Authorization"] as? String == "Bearer tk_secret")
    }

    @Test("actions: a token the server never issued is action_token_unknown, sent without the device's key")
    func unknownAction() async throws {
        let h = try await KitHarness.start(apiKey: Self.adminKey)
        defer { Task { await h.stop() } }
        await #expect { try await h.client.performNotificationAction(token: "rmact_never_issued_0000") } throws: { error in
            guard case RalphClientError.actionTokenUnknown(let why) = error else { return false }
            return !why.isEmpty && (error as? RalphClientError)?.description.contains("unknown") == true
        }
        // No key at all: the token is the credential, so the route answers (here: unknown) instead of 401.
        let keyless = try RalphClient(baseURL: h.server.base)
        await #expect { try await keyless.performNotificationAction(token: "not-a-token") } throws: { error in
            guard case RalphClientError.actionTokenUnknown = error else { return false }
            return true
        }
    }

    @Test("presence reporter: reports the screen, renews it on time, says foreground: false on leaving; a refused key is reported")
    func presenceReporter() async throws {
        let h = try await KitHarness.start(apiKey: Self.adminKey)
        defer { Task { await h.stop() } }
        let viewer = try await keyed(h, .viewer)
        let reporter = PresenceReporter(client: viewer, refresh: .milliseconds(300))
        reporter.enterForeground()
        reporter.show("session", subjectID: "0123456789abcdef")
        await reporter.flush()
        #expect(reporter.sent == [PresenceReport(foreground: true), PresenceReport(foreground: true, screen: "session", subjectId: "0123456789abcdef")])
        try await until(3, "two renewals") { reporter.sent.count >= 4 }
        #expect(reporter.sent.dropFirst(2).allSatisfy { $0 == PresenceReport(foreground: true, screen: "session", subjectId: "0123456789abcdef") })
        reporter.enterBackground()
        await reporter.flush()
        #expect(reporter.sent.last == PresenceReport(foreground: false))
        let count = reporter.sent.count
        try await Task.sleep(for: .milliseconds(700))
        #expect(reporter.sent.count == count, "no renewals in the background")
        #expect(reporter.lastError == nil)
        reporter.stop()

        let wrong = PresenceReporter(client: try RalphClient(baseURL: h.server.base, apiKey: "rmk_wrong_000000000000000000"))
        wrong.enterForeground()
        await wrong.flush()
        #expect(wrong.sent.isEmpty)
        #expect(wrong.lastError == "Could not report presence: the server refused the API key (missing or wrong)")
        wrong.stop()
        // A screen name the server refuses is a clear error too.
        let long = PresenceReporter(client: viewer)
        long.enterForeground()
        long.show(String(repeating: "s", count: 41))
        await long.flush()
        #expect(long.lastError?.contains("screen is longer than 40 characters") == true)
        long.stop()
    }
}
