import AgentRunner
import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// The APNs sender against a local HTTP/2 TLS receiver (`Tests/Receivers/apns_receiver.py`, Python's `h2` and
/// `cryptography`) that checks the provider token against the public half of the `.p8` key and every header APNs
/// checks.
@Suite("Notifications: APNs over HTTP/2", .serialized)
struct NotificationAPNsTests {
    @Test("a test message and a question reach APNs over HTTP/2 with a valid provider token and headers; a 410 token removes the device")
    func deliveredOverHTTP2() async throws {
        let tmp = TemporaryDirectory("rm-apns")
        let (receiver, credentials) = try await APNsReceiver.started(in: tmp)
        let h = try await SteeringHarness.start { $0.notifications.apns = credentials }
        defer { h.stop() }
        let token = String(repeating: "ab", count: 32)
        let created = try await h.post("/api/notifications/devices", #"{"name":"iPhone","channel":"apns","apns":{"device_token":"\#(token)","environment":"sandbox"}}"#)
        #expect(created.status == 201, "\(created.text)")
        let device = try created.json(NotificationDevice.self)
        let test = try await h.post("/api/notifications/devices/\(device.id)/test", "{}").json(NotificationDelivery.self)
        #expect(test.outcome == "delivered" && test.status == 200, "\(test.detail ?? "")")

        h.config(NotificationDeliveryTests.question, robotTimeout: 60)
        _ = try await h.startRun()
        try await eventually(20, "the question at APNs") {
            try receiver.entries().contains { $0["payload"]?.objectValue?["ralph"]?.objectValue?["kind"]?.stringValue == "question" }
        }
        let entries = try receiver.entries()
        #expect(entries.allSatisfy { $0["errors"] == .array([]) && $0["status"]?.intValue == 200 }, "\(entries)")
        let question = try #require(entries.first { $0["payload"]?.objectValue?["ralph"]?.objectValue?["kind"]?.stringValue == "question" })
        let headers = try #require(question["headers"]?.objectValue)
        #expect(headers["apns-push-type"]?.stringValue == "alert" && headers["apns-priority"]?.stringValue == "10")
        #expect(headers["apns-topic"]?.stringValue == "com.example.RalphMobile")
        #expect(headers["apns-collapse-id"]?.stringValue?.hasPrefix("question-") == true)
        #expect(question["token"]?.stringValue == token)
        let aps = try #require(question["payload"]?.objectValue?["aps"]?.objectValue)
        #expect(aps["category"]?.stringValue == "RALPH_QUESTION" && aps["interruption-level"]?.stringValue == "time-sensitive")

        // A token APNs says is no longer registered: the device is removed.
        let gone = try await h.post("/api/notifications/devices", #"{"name":"old","channel":"apns","apns":{"device_token":"\#(String(repeating: "00", count: 32))","environment":"sandbox"}}"#)
        let goneDevice = try gone.json(NotificationDevice.self)
        let refused = try await h.post("/api/notifications/devices/\(goneDevice.id)/test", "{}").json(NotificationDelivery.self)
        #expect(refused.outcome == "expired" && refused.status == 410 && refused.detail?.contains("Unregistered") == true)
        let left = try await HTTP.get(h.server.base + "/api/notifications/devices").json(NotificationDeviceList.self)
        #expect(left.devices.map(\.id) == [device.id])
        await receiver.stop()
    }
}
