import Foundation
import RalphAPI

/// One `liveactivity` push: the payload ActivityKit reads (`aps.event`, `aps.timestamp`, `aps.content-state`, and
/// `stale-date`, `dismissal-date`, an `alert` when a person is needed) and the priority it is sent with.
///
/// Priority 10 (shown at once, counted against the app's budget) only when the activity starts waiting for a person
/// or ends; routine progress goes at priority 5, which APNs may delay to save the phone's battery.
struct LiveActivityPush: Sendable, Equatable {
    enum Event: String, Sendable {
        case update
        case end
    }

    /// How long an update counts before the lock screen greys it out (a later update replaces it).
    static let staleAfter: TimeInterval = 15 * 60
    /// How long an ended activity stays on the lock screen.
    static let keepEndedFor: TimeInterval = 15 * 60

    /// What lights the screen up when a person is needed.
    struct Alert: Sendable, Equatable {
        var title: String
        var body: String
    }

    var event: Event
    var state: LiveActivityState
    var urgent: Bool
    var alert: Alert?
    var timestamp: Date

    /// The push that moves an activity from `previous` (what it shows) to `state`.
    static func make(from previous: LiveActivityState?, to state: LiveActivityState, at now: Date) -> LiveActivityPush {
        let startsWaiting = state.phase.needsPerson && (previous?.phase != state.phase || previous?.waiting?.detail != state.waiting?.detail)
        var alert: Alert?
        if startsWaiting, let waiting = state.waiting {
            let title = state.phase == .waitingForAnswer ? "Waiting for your answer" : "Waiting for approval: \(waiting.what)"
            alert = Alert(title: title, body: waiting.detail ?? "")
        }
        return LiveActivityPush(
            event: state.phase.isFinal ? .end : .update, state: state, urgent: startsWaiting || state.phase.isFinal, alert: alert, timestamp: now)
    }

    var payload: JSONValue {
        get throws {
            let seconds = Int(timestamp.timeIntervalSince1970)
            var aps: [(String, JSONValue)] = [
                ("timestamp", .int(seconds)),
                ("event", .string(event.rawValue)),
                ("content-state", try JSONParser.parse(Array(try WireJSON.encode(state)))),
            ]
            switch event {
            case .update: aps.append(("stale-date", .int(seconds + Int(Self.staleAfter))))
            case .end: aps.append(("dismissal-date", .int(seconds + Int(Self.keepEndedFor))))
            }
            if let alert {
                var fields: [(String, JSONValue)] = [("title", .string(alert.title))]
                if !alert.body.isEmpty { fields.append(("body", .string(alert.body))) }
                aps.append(("alert", .object(JSONObject(fields))))
            }
            return .object(JSONObject([("aps", .object(JSONObject(aps)))]))
        }
    }
}
