import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// What the dispatcher sends as one message when several deliveries are due in one pass.
@Suite("Notifications: batches of due deliveries")
struct NotificationBatchTests {
    static let device = StoredDevice(
        id: "dev-1", keyID: nil, registration: RegisterDeviceRequest(name: "hook", channel: .webhook, webhook: WebhookTarget(url: "http://127.0.0.1:9/h")),
        createdAt: "2026-11-23T10:00:00.000Z")

    static func due(_ id: Int64, _ kind: NotificationKind, withdraw: Bool = false) -> DueDelivery {
        let content = NotificationContent(title: "t\(id)", body: "b", privateTitle: "p", privateBody: "", path: "/#/sessions/s")
        let event = NotificationEvent(
            key: "k\(id)", kind: kind, subject: "session", subjectID: "s", tag: "tag-\(id)", content: content, withdraw: withdraw)
        return DueDelivery(deliveryID: id, messageID: "m\(id)", attempts: 0, device: device, event: RecordedEvent(id: id, event: event, createdAt: 0))
    }

    @Test("folding on: one message per device and kind, withdrawals alone; --notify-fold 0: every delivery its own message")
    func folding() {
        let due = [Self.due(1, .question), Self.due(2, .question), Self.due(3, .question, withdraw: true), Self.due(4, .runFinished)]
        let folded = NotificationDispatcher.batches(due).map { $0.map(\.deliveryID) }
        #expect(folded == [[1, 2], [3], [4]])
        let separate = NotificationDispatcher.batches(due, fold: false).map { $0.map(\.deliveryID) }
        #expect(separate == [[1], [2], [3], [4]])
    }
}
