import Foundation
import RalphMobileKit

/// The one line a screen shows about its live connection: `Live`, `Reconnecting (attempt 3)`, `Polling every 5 s`.
public struct ConnectionLine: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case live, connecting, reconnecting, polling, ended, offline, failed
        /// The run's host is offline (a cluster): its events cannot come until it is back.
        case hostOffline
    }

    public var kind: Kind
    public var text: String
    public var tone: BadgeTone
    /// Whether a small activity indicator belongs beside the text (connecting or reconnecting).
    public var showsActivity: Bool

    public init(kind: Kind, text: String, tone: BadgeTone, showsActivity: Bool) {
        self.kind = kind
        self.text = text
        self.tone = tone
        self.showsActivity = showsActivity
    }

    /// `Live`, on every screen.
    static let live = ConnectionLine(kind: .live, text: "Live", tone: .success, showsActivity: false)
    /// `Connecting…`, on every screen.
    static let connecting = ConnectionLine(kind: .connecting, text: "Connecting…", tone: .info, showsActivity: true)
    /// `Not connected`, on every screen.
    static let offline = ConnectionLine(kind: .offline, text: "Not connected", tone: .neutral, showsActivity: false)

    /// The list's line: the global stream's state, and whether the list is polled meanwhile.
    public static func list(state: ConnectionState, isPolling: Bool, pollInterval: Duration) -> ConnectionLine {
        let polling = "polling every \(seconds(pollInterval)) s"
        switch state {
        case .connected:
            return .live
        case .connecting:
            return .connecting
        case .reconnecting(let attempt):
            let text = "Reconnecting (attempt \(attempt))" + (isPolling ? " · " + polling : "")
            return ConnectionLine(kind: .reconnecting, text: text, tone: .warning, showsActivity: true)
        case .disconnected:
            if isPolling { return ConnectionLine(kind: .polling, text: "Live updates off · " + polling, tone: .warning, showsActivity: false) }
            return .offline
        case .error(let message):
            let text = "Live updates stopped: \(message)" + (isPolling ? " · " + polling : "")
            return ConnectionLine(kind: isPolling ? .polling : .failed, text: text, tone: .danger, showsActivity: false)
        }
    }

    /// The event stream's line on the detail screen. A finished run has no stream: `Run ended`, with the reason when
    /// known. A run whose host is offline (`hostOffline`, its name) is not streamed: `Host alpha is offline`.
    public static func stream(state: ConnectionState, endedReason: String?, isActive: Bool, hostOffline: String? = nil) -> ConnectionLine {
        if let hostOffline, endedReason == nil {
            let host = hostOffline.isEmpty ? "Its host" : "Host \(hostOffline)"
            return ConnectionLine(kind: .hostOffline, text: "\(host) is offline: no events until it is back", tone: .danger, showsActivity: false)
        }
        switch state {
        case .connected, .connecting, .reconnecting:
            // Read as the list's line without polling: the detail screen has no polling fallback.
            return list(state: state, isPolling: false, pollInterval: .zero)
        case .error(let message):
            return ConnectionLine(kind: .failed, text: "Stream stopped: \(message)", tone: .danger, showsActivity: false)
        case .disconnected:
            if let endedReason { return ConnectionLine(kind: .ended, text: "Run ended: \(endedReason)", tone: .neutral, showsActivity: false) }
            if !isActive { return ConnectionLine(kind: .ended, text: "Run ended", tone: .neutral, showsActivity: false) }
            return .offline
        }
    }

    static func seconds(_ duration: Duration) -> String {
        let c = duration.components
        let value = Double(c.seconds) + Double(c.attoseconds) / 1e18
        return value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
