import RalphAPI

/// When a client reports its presence (`POST /api/notifications/presence`), as a value-type state machine: the server
/// does not buzz a person for the run or conversation they are looking at, and forgets a presence that is not renewed.
///
/// The rule:
/// - in the foreground, a change of screen is reported at once;
/// - in the foreground, the same screen is reported again once ``refresh`` has passed since the last report (the
///   driver ticks; an early tick sends nothing);
/// - going to the background reports `foreground: false` once (nothing more is sent until the foreground again);
/// - coming back to the foreground reports the screen at once.
///
/// The machine never reads a clock: every input carries `now`.
public struct PresenceMachine: Sendable, Equatable {
    /// Something that happened.
    public enum Input: Sendable, Equatable {
        /// The app or page came to the foreground.
        case foreground
        /// It went to the background (or the page was hidden).
        case background
        /// It shows another screen: `session`/`conversation` with the run or conversation id, or a screen about no one
        /// thing (`list`, `approvals`, `settings`) with none.
        case screen(String?, subjectID: String?)
        /// The driver's timer: report again when the last report is due for renewal.
        case tick
        /// The device this client registered as (nil when it has none): later reports carry it.
        case device(String?)
    }

    /// What to do.
    public enum Action: Sendable, Equatable {
        /// Nothing to send.
        case none
        /// Send this report now.
        case send(PresenceReport)
    }

    /// How long a report counts on the server (`PresenceReport.refreshSeconds`).
    public var refresh: Duration
    /// Whether the client is in the foreground.
    public private(set) var isForeground = false
    /// The screen shown (`session`, `conversation`, `list` …), if any.
    public private(set) var screen: String?
    /// The run or conversation the screen shows, if any.
    public private(set) var subjectID: String?
    /// The notification device the reports name, if any.
    public private(set) var deviceID: String?
    /// When the last report was sent (nil before the first and after a background report).
    public private(set) var lastReportAt: ContinuousClock.Instant?

    /// A machine in the background that has reported nothing; `refresh` is how long a report counts on the server.
    public init(refresh: Duration = .seconds(PresenceReport.refreshSeconds)) {
        self.refresh = refresh
    }

    /// The report of where the client is now.
    public var currentReport: PresenceReport {
        PresenceReport(deviceId: deviceID, foreground: isForeground, screen: isForeground ? screen : nil, subjectId: isForeground ? subjectID : nil)
    }

    /// Handles one input at time `now`; returns the report to send now, if any.
    public mutating func handle(_ input: Input, now: ContinuousClock.Instant) -> Action {
        switch input {
        case .foreground:
            guard !isForeground else { return .none }
            isForeground = true
            return report(now)
        case .background:
            guard isForeground else { return .none }
            isForeground = false
            lastReportAt = nil
            return .send(currentReport)
        case .screen(let screen, let subjectID):
            guard screen != self.screen || subjectID != self.subjectID else { return .none }
            self.screen = screen
            self.subjectID = subjectID
            return isForeground ? report(now) : .none
        case .tick:
            guard isForeground, let last = lastReportAt, now - last >= refresh else { return .none }
            return report(now)
        case .device(let id):
            guard id != deviceID else { return .none }
            deviceID = id
            return isForeground ? report(now) : .none
        }
    }

    private mutating func report(_ now: ContinuousClock.Instant) -> Action {
        lastReportAt = now
        return .send(currentReport)
    }

    /// When the driver should tick next: the renewal time of the last report, while in the foreground.
    public var nextTick: ContinuousClock.Instant? {
        guard isForeground, let lastReportAt else { return nil }
        return lastReportAt + refresh
    }
}
