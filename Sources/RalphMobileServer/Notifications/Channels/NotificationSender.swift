import Foundation
import RalphAPI

/// Delivers a message to one device over one channel, and says what happened. Never throws: every failure is an
/// outcome with words, which the dispatcher logs and acts on.
protocol NotificationSender: Sendable {
    func send(_ message: NotificationMessage, to device: StoredDevice, urgent: Bool) async -> DeliveryOutcome
}

/// What one attempt gave.
enum DeliveryOutcome: Sendable, Equatable {
    /// The receiver took it.
    case delivered(status: Int)
    /// Worth trying again (a network error, 429, 5xx), after `after` seconds when the receiver said.
    case retry(status: Int?, detail: String, after: Double?)
    /// The subscription or token no longer exists (404, 410, APNs `Unregistered`): the device is removed.
    case gone(status: Int, detail: String)
    /// Will not work by trying again (a refused payload, bad credentials): given up, the device keeps the error.
    case failed(status: Int?, detail: String)

    /// The usual meaning of an HTTP status from a push service or webhook; `body` explains failures.
    static func fromHTTP(status: Int, body: String, retryAfter: String?) -> DeliveryOutcome {
        let detail = "HTTP \(status)" + (body.isEmpty ? "" : ": " + String(body.prefix(300)))
        switch status {
        case 200..<300: return .delivered(status: status)
        case 404, 410: return .gone(status: status, detail: detail)
        case 408, 425, 429, 500..<600: return .retry(status: status, detail: detail, after: retryAfter.flatMap(Double.init))
        default: return .failed(status: status, detail: detail)
        }
    }
}
