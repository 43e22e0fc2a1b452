import Foundation
import RalphAPI

/// Which devices an event goes to, and when (pure; the dispatcher supplies what it read).
///
/// - A withdrawal goes only to the devices that were told the thing, on channels that can take a notification back
///   (Web Push, APNs, webhook — not ntfy, whose messages stay).
/// - Anything else goes to every device that wants its kind. A device whose key's person is looking at the thing right
///   now is skipped (logged, not sent). A device told about the same kind less than the fold window ago waits for the
///   window's end, so that a burst arrives as one message.
enum NotificationRouting {
    struct Inputs {
        var devices: [StoredDevice]
        /// Devices told about the event's tag (for withdrawals).
        var told: Set<String>
        /// Whether the person of a key is looking at the event's subject.
        var isWatching: (String?) -> Bool
        /// When each device was last sent this kind.
        var lastSent: [String: Double]
        var now: Double
        var foldWindow: Double
    }

    static func plan(_ recorded: RecordedEvent, _ inputs: Inputs) -> [PlannedDelivery] {
        let event = recorded.event
        return inputs.devices.compactMap { device in
            let messageID = "m\(recorded.id)-\(device.id)"
            if event.withdraw {
                guard inputs.told.contains(device.id), device.channel != .ntfy else { return nil }
                return PlannedDelivery(deviceID: device.id, messageID: messageID, state: "pending", dueAt: inputs.now)
            }
            guard device.kinds.contains(event.kind) else { return nil }
            if inputs.isWatching(device.keyID) {
                return PlannedDelivery(deviceID: device.id, messageID: messageID, state: "skipped", dueAt: inputs.now)
            }
            var due = inputs.now
            if let last = inputs.lastSent[device.id], inputs.now - last < inputs.foldWindow { due = last + inputs.foldWindow }
            return PlannedDelivery(deviceID: device.id, messageID: messageID, state: "pending", dueAt: due)
        }
    }
}
