import RalphMobilePresentation
import SwiftUI
import UIKit

/// Ralph Mobile: watch and steer the AI coding agents running on your computer, from an iPhone or an iPad.
@main
struct RalphMobileApp: App {
    @UIApplicationDelegateAdaptor(AppDelegate.self) private var delegate
    @State private var app: AppModel
    @State private var notifications: NotificationsHub
    private let launch: AppLaunchOptions

    init() {
        let launch = AppLaunchOptions(arguments: ProcessInfo.processInfo.arguments, environment: ProcessInfo.processInfo.environment)
        self.launch = launch
        let app = AppBootstrap.makeModel(launch)
        let notifications = NotificationsHub(app: app, deviceName: UIDevice.current.name, liveActivities: LiveActivityController.perform)
        AppDelegate.hub = notifications
        LiveActivityController.tokenHandler = { [weak notifications] token in await notifications?.liveActivity.pushTokenReceived(token) }
        _app = State(initialValue: app)
        _notifications = State(initialValue: notifications)
    }

    var body: some Scene {
        WindowGroup {
            RootView(launch: launch)
                .environment(app)
                .environment(notifications)
                .environment(\.appTheme, app.theme)
                .preferredColorScheme(.dark)
                .task { await app.start() }
                .task(id: app.connectionID) { await notifications.connectionChanged() }
                .onOpenURL { url in
                    if let route = NotificationRoute(url: url) { notifications.responder.pendingRoute = route }
                }
        }
    }
}
