/// Accessibility identifiers the UI tests look for (`Apps/RalphMobile/UITests`). A view sets them with
/// `.accessibilityIdentifier(AccessibilityID.sessionRow)`; they are not read by VoiceOver (labels are).
public enum AccessibilityID {
    /// Onboarding: the address field, the key field, the Connect button, the failure message.
    public static let onboardingAddress = "onboarding.address"
    public static let onboardingKey = "onboarding.key"
    public static let onboardingConnect = "onboarding.connect"
    public static let onboardingFailure = "onboarding.failure"
    /// The sessions list, and each of its rows (a NavigationLink to the session).
    public static let sessionsList = "sessions.list"
    public static let sessionRow = "sessions.row"
    /// Session detail: the live event stream's list and each event row.
    public static let sessionEvents = "session.events"
    public static let sessionEventRow = "session.event"
    /// Session detail: the count of events received (`SessionMonitor.eventCount`); its accessibility value is that
    /// number in digits (`.accessibilityValue(String(monitor.eventCount))`): the UI smoke test waits for it to grow.
    public static let sessionEventCount = "session.eventCount"
    /// The root tab bar / sidebar entry of a section: `section.<rawValue>`.
    public static func section(_ section: AppSection) -> String { "section." + section.rawValue }
    /// Settings: the log-out button, the servers entry.
    public static let settingsLogOut = "settings.logout"
    public static let settingsServers = "settings.servers"
}
