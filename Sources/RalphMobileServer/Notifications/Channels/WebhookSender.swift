import Crypto
import Foundation
import RalphAPI

/// POSTs the message as JSON to the device's URL, signed.
///
/// Headers: `X-Ralph-Mobile-Timestamp: <unix seconds>`, `X-Ralph-Mobile-Signature: sha256=<hex>` — the HMAC-SHA256,
/// with the device's secret, of `<timestamp>.<raw body>` (a receiver recomputes it and refuses a stale timestamp, so
/// a captured request cannot be replayed later) — and `Idempotency-Key: <message id>`, the same for every retry.
struct WebhookSender: NotificationSender {
    let http: PushHTTP

    func send(_ message: NotificationMessage, to device: StoredDevice, urgent: Bool) async -> DeliveryOutcome {
        guard let target = device.registration.webhook, let secret = target.secret else {
            return .failed(status: nil, detail: "the webhook registration has no URL or secret")
        }
        let body: [UInt8]
        do { body = Array(try WireJSON.encode(message)) } catch { return .failed(status: nil, detail: "could not encode the message: \(error)") }
        let timestamp = String(Int(Date().timeIntervalSince1970))
        let headers = [
            ("Content-Type", "application/json"),
            ("X-Ralph-Mobile-Timestamp", timestamp),
            ("X-Ralph-Mobile-Signature", "sha256=" + Self.signature(secret: secret, timestamp: timestamp, body: body)),
            ("Idempotency-Key", message.id),
            ("User-Agent", "ralph-mobile-server"),
        ]
        return await http.deliver(target.url, headers: headers, body: body)
    }

    static func signature(secret: String, timestamp: String, body: [UInt8]) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array(timestamp.utf8) + [UInt8(ascii: ".")] + body, using: SymmetricKey(data: Data(secret.utf8)))
        return mac.map { String(format: "%02x", $0) }.joined()
    }
}
