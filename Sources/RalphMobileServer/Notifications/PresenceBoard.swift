import Foundation
import RalphAPI
import Synchronization

/// Who is looking at what, from clients' explicit ``PresenceReport``s (a page or app in the foreground). Nothing else
/// counts as presence: an open event stream may be an agent, a script or a server, so it never does.
///
/// A report lasts ``PresenceReport/refreshSeconds`` plus a margin; a `foreground: false` report ends it at once.
final class PresenceBoard: Sendable {
    struct Entry: Sendable, Hashable {
        var keyID: String?
        var deviceID: String?
        var screen: String?
        var subjectID: String?
        var expires: Date
    }

    /// How long a report counts: the refresh period and a margin for a slow network.
    static let lifetime = TimeInterval(PresenceReport.refreshSeconds + 15)

    private let entries = Mutex<[String: Entry]>([:])

    /// Records a report; `client` identifies the reporting page or app (its device id, or its key when it has none).
    func report(_ report: PresenceReport, keyID: String?, now: Date = Date()) {
        let client = report.deviceId ?? "key:\(keyID ?? "-")"
        entries.withLock { all in
            all = all.filter { $0.value.expires > now }
            if report.foreground {
                all[client] = Entry(keyID: keyID, deviceID: report.deviceId, screen: report.screen, subjectID: report.subjectId, expires: now + Self.lifetime)
            } else {
                all[client] = nil
            }
        }
    }

    /// Whether someone with `keyID` is looking at the subject right now (then that key's devices are not buzzed for it).
    func isWatching(keyID: String?, subject: String, subjectID: String, now: Date = Date()) -> Bool {
        entries.withLock { all in
            all.values.contains { entry in
                entry.expires > now && entry.keyID == keyID && entry.screen == subject && entry.subjectID == subjectID
            }
        }
    }
}
