import Foundation
import RalphAPI

extension APNsSender {
    /// Sends a `liveactivity` push to an activity's push token: `apns-push-type: liveactivity`, the topic
    /// `<bundle id>.push-type.liveactivity`, the push's priority, an `apns-id` derived from the activity and the
    /// push's timestamp. ActivityKit orders updates by `aps.timestamp`, so a late retry never replaces a newer state.
    func send(_ push: LiveActivityPush, to activity: StoredLiveActivity) async -> DeliveryOutcome {
        let body: [UInt8]
        let bearer: String
        do {
            body = Array(try WireJSON.encode(try push.payload))
            bearer = try token.current()
        } catch {
            return .failed(status: nil, detail: "\(error)")
        }
        let headers = [
            ("authorization", "bearer \(bearer)"),
            ("apns-push-type", "liveactivity"),
            ("apns-topic", credentials.topic + ".push-type.liveactivity"),
            ("apns-priority", push.urgent ? "10" : "5"),
            ("apns-id", Self.apnsID("\(activity.id)|\(Int(push.timestamp.timeIntervalSince1970 * 1000))")),
            ("apns-expiration", String(Int(push.timestamp.timeIntervalSince1970 + LiveActivityPush.staleAfter))),
            ("content-type", "application/json"),
        ]
        return await post(token: activity.pushToken, environment: activity.environment, headers: headers, body: body)
    }
}
