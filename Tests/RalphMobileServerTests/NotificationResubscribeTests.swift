import Crypto
import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// A browser that replaced its push subscription (`pushsubscriptionchange`) registers the new one with
/// `replaces_endpoint`: the device carries over, under the same key only. Through the real server with two keys, and
/// through the store for the deliveries that were waiting.
@Suite("Notifications: a rotated Web Push subscription replaces its device", .serialized)
struct NotificationResubscribeTests {
    static let admin = "admin-key-0123456789abcdef"

    /// A subscription the server accepts (a real P-256 key, 16 bytes of auth) at `https://push.example/<path>`.
    static func subscription(_ path: String) -> String {
        let key = P256.KeyAgreement.PrivateKey().publicKey.x963Representation
        let auth = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        return #"{"endpoint":"https://push.example/\#(path)","keys":{"p256dh":"\#(base64url(key))","auth":"\#(base64url(auth))"}}"#
    }

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func registration(_ path: String, name: String = "new name", replacing old: String? = nil, extra: String = "") -> String {
        let replaces = old.map { #","replaces_endpoint":"https://push.example/\#($0)""# } ?? ""
        return #"{"name":"\#(name)","channel":"web_push","web_push":\#(subscription(path))\#(replaces)\#(extra)}"#
    }

    func devices(_ h: SteeringHarness, key: String) async throws -> [NotificationDevice] {
        try await HTTP.get(h.server.base + "/api/notifications/devices", headers: [("X-Api-Key", key)]).json(NotificationDeviceList.self).devices
    }

    func viewerKey(_ h: SteeringHarness) async throws -> String {
        let created = try await HTTP.request(h.server.base + "/api/keys", method: .POST, headers: [("X-Api-Key", Self.admin)], body: #"{"role":"viewer"}"#)
        return try #require((created.object as? [String: Any])?["secret"] as? String)
    }

    @Test("the new subscription takes over the old device's name, kinds, privacy and quiet hours; the old device is gone")
    func settingsCarriedOver() async throws {
        let h = try await SteeringHarness.start { $0.apiKey = Self.admin }
        defer { h.stop() }
        let viewer = try await viewerKey(h)
        let old = try await h.post(
            "/api/notifications/devices",
            Self.registration("old", name: "Kitchen tablet", extra: #","kinds":["approval"],"privacy":"private","quiet_hours":{"start":"22:00","end":"07:00"}"#),
            key: viewer)
        #expect(old.status == 201, "\(old.text)")
        let oldDevice = try old.json(NotificationDevice.self)

        let new = try await h.post("/api/notifications/devices", Self.registration("new", replacing: "old"), key: viewer)
        #expect(new.status == 201, "\(new.text)")
        let device = try new.json(NotificationDevice.self)
        #expect(device.id != oldDevice.id && device.name == "Kitchen tablet" && device.kinds == [.approval] && device.privacy == .private)
        #expect(device.quietHours == QuietHours(start: "22:00", end: "07:00"))
        #expect(try await devices(h, key: viewer).map(\.id) == [device.id], "the old device is gone")

        // Rotated again, with a choice given this time: the choice wins, the name still carries over.
        let third = try await h.post("/api/notifications/devices", Self.registration("third", replacing: "new", extra: #","kinds":["question"]"#), key: viewer)
        #expect(third.status == 201, "\(third.text)")
        let thirdDevice = try third.json(NotificationDevice.self)
        #expect(thirdDevice.name == "Kitchen tablet" && thirdDevice.kinds == [.question] && thirdDevice.privacy == .private)
        #expect(try await devices(h, key: viewer).map(\.id) == [thirdDevice.id])
    }

    @Test("another key's device is not replaced (403, nothing changes); an unknown old endpoint registers a new device")
    func otherKeyRefused() async throws {
        let h = try await SteeringHarness.start { $0.apiKey = Self.admin }
        defer { h.stop() }
        let viewer = try await viewerKey(h)
        let theirs = try await h.post("/api/notifications/devices", Self.registration("theirs", name: "Admin's phone"), key: Self.admin)
        #expect(theirs.status == 201)

        let refused = try await h.post("/api/notifications/devices", Self.registration("mine", replacing: "theirs"), key: viewer)
        #expect(refused.status == 403 && refused.text.contains("another key"), "\(refused.text)")
        #expect(try await devices(h, key: viewer).isEmpty, "nothing was registered")
        let all = try await devices(h, key: Self.admin)
        #expect(all.map(\.name) == ["Admin's phone"] && all.first?.keyId != nil, "the other key's device is untouched")

        let unknown = try await h.post("/api/notifications/devices", Self.registration("fresh", name: "Laptop", replacing: "never-seen"), key: viewer)
        #expect(unknown.status == 201, "\(unknown.text)")
        #expect(try unknown.json(NotificationDevice.self).name == "Laptop", "an ordinary registration")
        #expect(try await devices(h, key: Self.admin).count == 2)
    }

    @Test("replaces_endpoint is checked: web_push only, an https URL")
    func badInput() async throws {
        let h = try await SteeringHarness.start { $0.apiKey = Self.admin }
        defer { h.stop() }
        let ntfy = try await h.post(
            "/api/notifications/devices", #"{"name":"w","channel":"ntfy","ntfy":{"url":"https://ntfy.sh/t"},"replaces_endpoint":"https://push.example/a"}"#,
            key: Self.admin)
        #expect(ntfy.status == 400 && ntfy.text.contains("only for web_push"), "\(ntfy.text)")
        for bad in ["http://push.example/a", "not a url", ""] {
            let body = #"{"name":"p","channel":"web_push","web_push":\#(Self.subscription("b")),"replaces_endpoint":"\#(bad)"}"#
            let result = try await h.post("/api/notifications/devices", body, key: Self.admin)
            #expect(result.status == 400 && result.text.contains("replaces_endpoint must be"), "\(bad): \(result.text)")
        }
        let wrongType = try await h.post(
            "/api/notifications/devices", #"{"name":"p","channel":"web_push","web_push":\#(Self.subscription("c")),"replaces_endpoint":42}"#, key: Self.admin)
        #expect(wrongType.status == 400, "\(wrongType.text)")
        #expect(try await devices(h, key: Self.admin).isEmpty)
    }

    @Test("deliveries waiting for the old device go to the new one; replacing its own endpoint is an ordinary re-registration")
    func pendingDeliveriesMove() async throws {
        let tmp = TemporaryDirectory()
        let notifications = NotificationStore(chat: try ChatStore(path: tmp.path + "/chat.sqlite"))
        func request(_ path: String, replacing old: String? = nil) throws -> RegisterDeviceRequest {
            let body = Self.registration(path, replacing: old)
            return try DeviceRegistration.validated(try WireJSON.decode(RegisterDeviceRequest.self, from: Data(body.utf8)))
        }
        let now = Timestamp.now()
        let old = try await notifications.register(try request("old"), keyID: "k1", now: now)
        let content = NotificationContent(title: "t", body: "b", privateTitle: "p", privateBody: "", path: "/#/sessions/s-1")
        try await notifications.record(
            [NotificationEvent(key: "run:s-1:end", kind: .runFinished, subject: "session", subjectID: "s-1", tag: "end-s-1", content: content)],
            now: Date())
        let event = try #require(try await notifications.unroutedEvents().first)
        try await notifications.route(
            eventID: event.id, deliveries: [PlannedDelivery(deviceID: old.id, messageID: "m-1", state: "pending", dueAt: Date().timeIntervalSince1970 + 3600)])

        let same = try await notifications.register(try request("old", replacing: "old"), keyID: "k1", now: now)
        #expect(same.id == old.id, "its own endpoint: the same device")
        let new = try await notifications.register(try request("new", replacing: "old"), keyID: "k1", now: now)
        #expect(try await notifications.device(id: old.id) == nil)
        #expect(new.registration.replacesEndpoint == nil, "not stored")
        let due = try await notifications.due(now: Date().timeIntervalSince1970 + 7200)
        #expect(due.map(\.device.id) == [new.id] && due.map(\.messageID) == ["m-1"])
    }
}
