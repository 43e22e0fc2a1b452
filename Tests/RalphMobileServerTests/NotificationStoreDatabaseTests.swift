import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// The notification outbox and the Live Activities table on both databases (they share the chat store's).
@Suite("Notification and Live Activity stores on SQLite and PostgreSQL")
struct NotificationStoreDatabaseTests: ChatStoreSuite {
    let tmp = TemporaryDirectory("notification-store")

    static func event(_ key: String, tag: String = "tag-1", withdraw: Bool = false) -> NotificationEvent {
        NotificationEvent(
            key: key, kind: .approval, subject: "conversation", subjectID: "c1", tag: tag,
            content: NotificationContent(title: "Allow?", body: "touch x", privateTitle: "Approval", privateBody: "Open the app", path: "/#/chats/c1"),
            withdraw: withdraw)
    }

    @Test("devices, the outbox, deliveries, the log and single-use tokens", arguments: StoreDatabase.allCases)
    func outbox(_ database: StoreDatabase) async throws {
        let notifications = NotificationStore(chat: try await store(database))
        let device = try await notifications.register(
            RegisterDeviceRequest(name: "phone", channel: .ntfy, ntfy: NtfyTopic(url: "https://ntfy.example/t")), keyID: nil, now: Self.t0)
        let again = try await notifications.register(
            RegisterDeviceRequest(name: "phone 2", channel: .ntfy, ntfy: NtfyTopic(url: "https://ntfy.example/t")), keyID: nil, now: Self.t0)
        #expect(again.id == device.id, "the same target registered again keeps its id")
        #expect(try await notifications.devices(keyID: .some(nil)).map(\.id) == [device.id])
        #expect(try await notifications.devices(keyID: .some("k1")).isEmpty)

        try await notifications.record([Self.event("e1"), Self.event("e1"), Self.event("e2", tag: "tag-2")], now: Date())
        let known = try await notifications.hasEvent(key: "e1")
        let unknown = try await notifications.hasEvent(key: "e9")
        #expect(known && !unknown)
        let unrouted = try await notifications.unroutedEvents()
        #expect(unrouted.map(\.event.key) == ["e1", "e2"], "each key once")
        let now = Date().timeIntervalSince1970
        try await notifications.route(eventID: unrouted[0].id, deliveries: [PlannedDelivery(deviceID: device.id, messageID: "m1", state: "pending", dueAt: now - 1)])
        #expect(try await notifications.unroutedEvents().map(\.event.key) == ["e2"])
        let due = try await notifications.due(now: now)
        #expect(due.map(\.messageID) == ["m1"] && due.first?.event.event.key == "e1" && due.first?.device.id == device.id)
        #expect(try await notifications.nextDue() == now - 1)
        try await notifications.finish(
            AttemptRecord(
                deliveryIDs: [due[0].deliveryID], messageID: "m1", deviceID: device.id, channel: .ntfy, kind: .approval, attempt: 1,
                outcome: "delivered", status: 200, detail: nil, at: Date()))
        #expect(try await notifications.due(now: now + 10).isEmpty)
        #expect(try await notifications.nextDue() == nil)
        #expect(try await notifications.devicesTold(tag: "tag-1") == [device.id])
        #expect(try await notifications.lastSent(deviceID: device.id, kind: .approval) != nil)
        #expect(try await notifications.log(limit: 10).map(\.outcome) == ["delivered"])
        #expect(try await notifications.log(limit: 10, deviceID: "other").isEmpty)

        let token = ActionToken(
            hash: "h1", action: "allow", subject: "conversation", subjectID: "c1", target: "a1", deviceID: device.id, keyID: nil,
            expiresAt: Date().addingTimeInterval(60))
        try await notifications.storeToken(token)
        let consumed = try await notifications.consumeToken(hash: "h1", now: Date()).get()
        #expect(consumed.target == "a1" && consumed.deviceID == device.id && abs(consumed.expiresAt.timeIntervalSince(token.expiresAt)) < 0.001)
        #expect(try await notifications.consumeToken(hash: "h1", now: Date()) == .failure(.used))
        #expect(try await notifications.consumeToken(hash: "nope", now: Date()) == .failure(.unknown))
        let removed = try await notifications.remove(deviceID: device.id)
        let removedAgain = try await notifications.remove(deviceID: device.id)
        #expect(removed && !removedAgain)
    }

    @Test("Live Activities: registered by push token, listed by key, removed once", arguments: StoreDatabase.allCases)
    func liveActivities(_ database: StoreDatabase) async throws {
        let activities = LiveActivityStore(chat: try await store(database))
        let request = RegisterLiveActivityRequest(subject: .session, subjectId: "s1", pushToken: "ABCDEF", environment: .sandbox)
        let first = try await activities.register(request, keyID: "k1", now: Self.t0)
        let again = try await activities.register(request, keyID: "k1", now: Self.t0)
        #expect(first.id == again.id && first.pushToken == "abcdef")
        #expect(try await activities.activities(keyID: .some("k1")).map(\.id) == [first.id])
        #expect(try await activities.activities(keyID: .some(nil)).isEmpty)
        try await activities.record(.retrying(attempts: 2, retryAt: 5, error: "503"), id: first.id)
        #expect(try await activities.activity(id: first.id)?.attempts == 2)
        let removed = try await activities.remove(id: first.id)
        let removedAgain = try await activities.remove(id: first.id)
        #expect(removed && !removedAgain)
    }
}
