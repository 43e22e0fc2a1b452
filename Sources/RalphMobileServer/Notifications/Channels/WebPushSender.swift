import Crypto
import Foundation
import RalphAPI
import RalphNotify

/// Sends the message to a browser's push service: the JSON encrypted for the subscription (RFC 8291 `aes128gcm`),
/// signed with the server's VAPID key (RFC 8292), with `TTL`, `Urgency` and a `Topic` derived from the tag (a push
/// service replaces an undelivered message with the same topic, so a withdrawal overtakes what it withdraws).
struct WebPushSender: NotificationSender {
    let http: PushHTTP
    let vapid: VAPID

    /// How long a push service keeps a message for a phone that is offline: a day; withdrawals an hour.
    static let timeToLive = 86_400

    func send(_ message: NotificationMessage, to device: StoredDevice, urgent: Bool) async -> DeliveryOutcome {
        guard let subscription = device.registration.webPush,
            let p256dh = Base64URL.decode(subscription.keys.p256dh), let auth = Base64URL.decode(subscription.keys.auth)
        else { return .failed(status: nil, detail: "the web push subscription's keys are not base64url") }
        let body: [UInt8]
        let authorization: String
        do {
            body = try WebPushEncryption.encrypt(Array(try WireJSON.encode(message)), p256dh: p256dh, auth: auth)
            authorization = try vapid.authorization(endpoint: subscription.endpoint)
        } catch {
            return .failed(status: nil, detail: "\(error)")
        }
        let headers = [
            ("Content-Type", "application/octet-stream"),
            ("Content-Encoding", "aes128gcm"),
            ("TTL", String(message.withdraw == true ? 3600 : Self.timeToLive)),
            ("Urgency", urgent ? "high" : "normal"),
            ("Topic", Self.topic(message.tag)),
            ("Authorization", authorization),
        ]
        return await http.deliver(subscription.endpoint, headers: headers, body: body)
    }

    /// A `Topic` is at most 32 characters of the base64url alphabet: the first 24 bytes of the tag's SHA-256.
    static func topic(_ tag: String) -> String {
        String(Base64URL.encode(SHA256.hash(data: Data(tag.utf8))).prefix(32))
    }
}
