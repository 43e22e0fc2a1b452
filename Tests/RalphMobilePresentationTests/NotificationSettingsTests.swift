import Foundation
import RalphAPI
import RalphMobileKit
import Testing
import TestSupport

@testable import RalphMobilePresentation

/// The Notifications settings screen's model against the real server (no APNs credentials, as here), and the local
/// receivers for another device's test.
@Suite("Notification settings", .serialized)
@MainActor
struct NotificationSettingsTests {
    static let adminKey = "rmk_app_notify_admin_0123456789"
    static let token = Data((0..<32).map { UInt8($0 * 7 % 256) })

    @Test("channels with APNs not configured; this phone registers its token; kinds, privacy and quiet hours change on the server")
    func thisPhone() async throws {
        let h = try await AppHarness.start(apiKey: Self.adminKey)
        defer { Task { await h.stop() } }
        let viewer = try await h.createKey(.viewer, name: "phone")
        let app = try await h.connectedApp(key: viewer.secret)
        let model = NotificationSettingsModel(app: app)
        model.timeZone = TimeZone(identifier: "Europe/Paris")!
        await model.load()
        #expect(model.loadState == .loaded)
        let apns = try #require(model.channelRows.first { $0.label == "Apple Push (this app)" })
        #expect(apns.value.hasPrefix("APNs is not configured: start the server with --apns-key"), "\(apns.value)")
        #expect(!model.apnsAvailable && model.thisDeviceNote?.hasPrefix("APNs is not configured") == true)
        #expect(model.channelRows.contains { $0.label == "Webhook" && $0.value == "Ready" })

        #expect(NotificationSettingsModel.hex(Data([0x00, 0xab, 0x0f])) == "00ab0f")
        #expect(await model.registerThisDevice(token: Self.token, environment: .sandbox, name: "iPhone"))
        let device = try #require(model.thisDevice)
        #expect(device.channel == .apns && device.name == "iPhone" && device.target == "APNs sandbox")
        #expect(model.kindRows.count == NotificationKind.allCases.count && model.kindRows.count == 7 && model.kindRows.allSatisfy(\.isOn))

        await model.setKind(.runSilent, on: false)
        #expect(model.kindRows.first { $0.kind == .runSilent }?.isOn == false)
        await model.setPrivacy(.private)
        #expect(model.privacy == .private)
        model.quietStart = "7:00"
        await model.saveQuietHours()
        #expect(model.lastError == "Start must be a time such as 22:00 (24-hour).")
        model.quietStart = "22:30"
        model.quietEnd = "06:45"
        await model.saveQuietHours()
        #expect(model.quietHoursOn && model.quietHoursSummary.hasPrefix("22:30–06:45 (Europe/Paris)"))
        #expect(model.quietText(model.quietDate("22:30")) == "22:30")

        // What the server keeps, seen through the SDK.
        let client = try h.client(key: viewer.secret)
        let stored = try #require(try await client.notificationDevices().first)
        #expect(stored.kinds == NotificationKind.allCases.filter { $0 != .runSilent } && stored.privacy == .private)
        #expect(stored.quietHours == QuietHours(start: "22:30", end: "06:45", timeZone: "Europe/Paris"))

        // The next launch registers the token again: the same device, the phone's choices kept.
        let relaunched = NotificationSettingsModel(app: app)
        await relaunched.load()
        #expect(relaunched.thisDeviceID == device.id && relaunched.quietStart == "22:30")
        #expect(await relaunched.registerThisDevice(token: Self.token, environment: .sandbox, name: "iPhone 2"))
        let again = try #require(relaunched.thisDevice)
        #expect(again.id == device.id && again.privacy == .private && again.quietHours != nil && again.name == "iPhone")
        #expect(try await client.notificationDevices().count == 1)

        // The server cannot reach APNs: the test says so in words.
        await relaunched.sendTest(device.id)
        #expect(relaunched.testOutcomes[device.id]?.hasPrefix("Not delivered: APNs is not configured") == true, "\(String(describing: relaunched.testOutcomes[device.id]))")

        await relaunched.turnOffQuietHours()
        #expect(!relaunched.quietHoursOn && relaunched.quietHoursSummary.hasPrefix("Off"))
        for kind in NotificationKind.allCases where kind != .approval { await relaunched.setKind(kind, on: false) }
        await relaunched.setKind(.approval, on: false)
        #expect(relaunched.lastError == "Keep at least one kind on, or remove this phone to be told nothing.")
        #expect(relaunched.kindRows.filter(\.isOn).map(\.kind) == [.approval])

        await relaunched.remove(device.id)
        #expect(relaunched.thisDevice == nil && relaunched.devices.isEmpty)
        #expect(relaunched.thisDeviceNote?.hasPrefix("APNs is not configured") == true)
        #expect(try await client.notificationDevices().isEmpty)

        relaunched.registrationFailed("no valid aps-environment entitlement")
        #expect(relaunched.registrationProblem == "This phone could not register with Apple Push: no valid aps-environment entitlement")
        relaunched.systemPermission = .denied
        #expect(relaunched.thisDeviceNote?.contains("iOS Settings") == true)
    }

    @Test("the key's other devices: a webhook's test is delivered and says so; a refused one says why; a lost server is an error")
    func otherDevices() async throws {
        let h = try await AppHarness.start(apiKey: Self.adminKey)
        let receiver = try await LocalPushReceiver.start()
        defer { Task { await receiver.stop(); await h.stop() } }
        let app = try await h.connectedApp()
        let client = try h.client()
        let secret = "s3cret-for-the-app-test-0123"
        let url = try await receiver.hook(secret: secret)
        let hook = try await client.registerDevice(RegisterDeviceRequest(name: "CI", channel: .webhook, webhook: WebhookTarget(url: url, secret: secret)))
        let model = NotificationSettingsModel(app: app)
        await model.load()
        #expect(model.thisDevice == nil && model.otherDevices.map(\.id) == [hook.id])
        #expect(model.subtitle(hook) == "Webhook · \(url)")
        await model.sendTest(hook.id)
        #expect(model.testOutcomes[hook.id] == "Sent: the webhook took it (HTTP 200). Check that it arrived.")
        try await receiver.script(String(url.dropFirst(receiver.origin.count)), statuses: [403])
        await model.sendTest(hook.id)
        #expect(model.testOutcomes[hook.id]?.hasPrefix("Not delivered (HTTP 403): HTTP 403") == true, "\(String(describing: model.testOutcomes[hook.id]))")
        try await receiver.script(String(url.dropFirst(receiver.origin.count)), statuses: [410])
        await model.sendTest(hook.id)
        #expect(model.testOutcomes[hook.id]?.hasPrefix("Gone: HTTP 410") == true)
        #expect(model.devices.isEmpty, "an expired device is removed, and the list reloaded")

        await h.server.stop()
        await model.load()
        guard case .failed(let why) = model.loadState else { Issue.record("expected a failure, got \(model.loadState)"); return }
        #expect(why.hasPrefix("Could not load the notification settings: cannot reach the server"))
    }
}

/// The app-wide hub: the token registered when connected, presence naming the registered device and the screen.
@Suite("Notifications hub", .serialized)
@MainActor
struct NotificationsHubTests {
    @Test("the token is registered with the active server; presence reports carry the device and the screen, and stop in the background")
    func hub() async throws {
        let h = try await AppHarness.start(apiKey: NotificationSettingsTests.adminKey)
        defer { Task { await h.stop() } }
        let app = try await h.connectedApp()
        let hub = NotificationsHub(app: app, deviceName: "Test iPhone", refresh: .milliseconds(300))
        hub.enterForeground()
        hub.show("session", subjectID: "0123456789abcdef")
        #expect(hub.presence == nil, "no reporter before the connection is seen")
        await hub.tokenReceived(NotificationSettingsTests.token, environment: .sandbox)
        let device = try #require(hub.settings.thisDevice, "registered at once: the app is connected")
        #expect(device.name == "Test iPhone" && device.target == "APNs sandbox")

        await hub.connectionChanged()
        let presence = try #require(hub.presence)
        await presence.flush()
        #expect(presence.sent.last == PresenceReport(deviceId: device.id, foreground: true, screen: "session", subjectId: "0123456789abcdef"))
        hub.show(.approvals)
        await presence.flush()
        #expect(presence.sent.last == PresenceReport(deviceId: device.id, foreground: true, screen: "approvals"))
        hub.enterBackground()
        await presence.flush()
        #expect(presence.sent.last == PresenceReport(deviceId: device.id, foreground: false))
        #expect(presence.lastError == nil)
        await hub.connectionChanged()
        #expect(hub.presence === presence, "the same connection: the same reporter")
        presence.stop()

        hub.tokenFailed("remote notifications are not supported in the simulator")
        #expect(hub.settings.registrationProblem?.hasSuffix("not supported in the simulator") == true)
    }
}
