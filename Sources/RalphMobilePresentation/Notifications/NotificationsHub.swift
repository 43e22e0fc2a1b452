import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// The app's notifications, one per app: the device token Apple gave (registered with each server the app connects
/// to), the settings screen's model, the responder that carries out notification buttons, presence reports (renewed
/// while the app is in the foreground, naming the screen shown), and the Live Activity of the screen that started one.
///
/// The app's delegate and views call it; every rule is here or in the models it holds.
@MainActor
@Observable
public final class NotificationsHub {
    @ObservationIgnored public let app: AppModel
    public let settings: NotificationSettingsModel
    public let responder: NotificationResponder
    /// The Live Activity (one at a time), started from a run's or a conversation's screen.
    public let liveActivity: LiveActivityModel
    /// The active server's presence reporter (a new one for each connection).
    public private(set) var presence: PresenceReporter?
    /// The APNs token, once Apple gave it.
    public private(set) var deviceToken: Data?
    public private(set) var environment: APNsEnvironment = .production
    @ObservationIgnored private var connection = -1
    @ObservationIgnored private var isForeground = false
    @ObservationIgnored private var screen: (name: String?, subjectID: String?) = (nil, nil)
    @ObservationIgnored private let deviceName: String
    @ObservationIgnored private let refresh: Duration

    /// - Parameters:
    ///   - deviceName: what the phone is called in the device list (`UIDevice.current.name`).
    ///   - refresh: how often presence is renewed (tests shorten it).
    ///   - liveActivities: performs Live Activity actions (ActivityKit in the app); without it, starting one fails
    ///     with ``LiveActivitiesUnavailable``.
    public init(
        app: AppModel, deviceName: String, refresh: Duration = .seconds(PresenceReport.refreshSeconds),
        liveActivities: (@MainActor (LiveActivityTracker.Action) async throws -> Void)? = nil
    ) {
        self.app = app
        self.deviceName = deviceName
        self.refresh = refresh
        settings = NotificationSettingsModel(app: app)
        responder = NotificationResponder(app: app)
        if let liveActivities {
            liveActivity = LiveActivityModel(perform: liveActivities)
        } else {
            liveActivity = LiveActivityModel { _ in throw LiveActivitiesUnavailable() }
        }
    }

    /// Apple gave the app its token (at each launch): registered with the active server now, and with each server
    /// the app connects to later. `environment` is `sandbox` for development builds, `production` otherwise.
    public func tokenReceived(_ token: Data, environment: APNsEnvironment) async {
        deviceToken = token
        self.environment = environment
        liveActivity.server = app.client.map { LiveActivityServer(client: $0, environment: environment) }
        await registerIfConnected()
    }

    /// Apple refused a token.
    public func tokenFailed(_ description: String) {
        settings.registrationFailed(description)
    }

    /// The app connected to a server (or another one): a new presence reporter, and this phone registered there.
    public func connectionChanged() async {
        guard connection != app.connectionID else { return }
        connection = app.connectionID
        presence?.stop()
        presence = nil
        liveActivity.server = app.client.map { LiveActivityServer(client: $0, environment: environment) }
        guard let client = app.client else { return }
        let reporter = PresenceReporter(client: client, refresh: refresh)
        presence = reporter
        reporter.show(screen.name, subjectID: screen.subjectID)
        if isForeground { reporter.enterForeground() }
        await settings.load()
        await registerIfConnected()
    }

    public func enterForeground() {
        isForeground = true
        presence?.enterForeground()
    }

    public func enterBackground() {
        isForeground = false
        presence?.enterBackground()
    }

    /// The screen shown: a run (`session`), a conversation, or a section (`sessions`, `approvals` …).
    public func show(_ name: String?, subjectID: String? = nil) {
        screen = (name, subjectID)
        presence?.show(name, subjectID: subjectID)
    }

    public func show(_ section: AppSection) { show(section.rawValue) }

    private func registerIfConnected() async {
        guard let token = deviceToken, app.client != nil else { return }
        if await settings.registerThisDevice(token: token, environment: environment, name: deviceName) {
            presence?.useDevice(settings.thisDeviceID)
        }
    }
}

/// Live Activities cannot be shown here (no ActivityKit: previews, other platforms).
public struct LiveActivitiesUnavailable: Error, LocalizedError, Sendable {
    public init() {}
    public var errorDescription: String? { "Live Activities are not available on this device." }
}
