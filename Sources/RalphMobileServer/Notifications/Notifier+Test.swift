import Foundation
import RalphAPI

extension Notifier {
    /// Sends one test message to `device` now, outside the outbox (nothing to retry: the person is waiting for the
    /// answer), logs it, and returns the log entry — delivered, or why not.
    func sendTest(to device: StoredDevice) async throws -> NotificationDelivery {
        let now = Date()
        let messageID = "test-" + UUID().uuidString.lowercased()
        let message = NotificationMessage(
            id: messageID, kind: .approval, subject: "test", subjectId: device.id, title: "Ralph Mobile test",
            body: "Notifications reach \(device.registration.name).", tag: "test-\(device.id)", path: "/#/settings", actions: [],
            createdAt: Timestamp.format(now))
        let outcome = await dispatcher.sendDirect(message, to: device)
        var record = AttemptRecord(
            deliveryIDs: [], messageID: messageID, deviceID: device.id, channel: device.channel, kind: .approval, attempt: 1, outcome: "delivered",
            status: nil, detail: nil, at: Date())
        switch outcome {
        case .delivered(let status): record.status = status
        case .retry(let status, let detail, _), .failed(let status, let detail):
            record.outcome = "failed"
            record.status = status
            record.detail = detail
        case .gone(let status, let detail):
            record.outcome = "expired"
            record.status = status
            record.detail = detail + " — the subscription is gone; the device was removed"
        }
        try await store.finish(record)
        return NotificationDelivery(
            id: 0, messageId: messageID, deviceId: device.id, channel: device.channel, kind: .approval, attempt: 1, outcome: record.outcome,
            status: record.status, detail: record.detail, at: Timestamp.format(record.at))
    }
}
