import RalphAPI
import RalphMobilePresentation
import UIKit
import UserNotifications

/// UIKit's side of notifications: asks to notify, registers the categories and their buttons, hands the APNs token to
/// the hub, and hands taps and buttons to the hub's responder. Every rule is in `NotificationsHub` and the models it
/// holds (RalphMobilePresentation).
final class AppDelegate: NSObject, UIApplicationDelegate, UNUserNotificationCenterDelegate {
    /// Set by the app as it starts (before any notification can be handled).
    @MainActor static var hub: NotificationsHub?

    func application(
        _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]? = nil
    ) -> Bool {
        let center = UNUserNotificationCenter.current()
        center.delegate = self
        center.setNotificationCategories(Set(NotificationCategory.all.map(Self.category)))
        Task { @MainActor in await self.askAndRegister(application) }
        return true
    }

    @MainActor
    private func askAndRegister(_ application: UIApplication) async {
        let center = UNUserNotificationCenter.current()
        do {
            let granted = try await center.requestAuthorization(options: [.alert, .sound, .badge, .timeSensitive])
            Self.hub?.settings.systemPermission = granted ? .granted : .denied
        } catch {
            Self.hub?.settings.systemPermission = .denied
        }
        // Registered even when alerts are refused: withdrawals and Live Activity updates still reach the app.
        application.registerForRemoteNotifications()
    }

    func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        #if DEBUG
        let environment = APNsEnvironment.sandbox
        #else
        let environment = APNsEnvironment.production
        #endif
        Task { @MainActor in await Self.hub?.tokenReceived(deviceToken, environment: environment) }
    }

    func application(_ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: any Error) {
        let description = error.localizedDescription
        Task { @MainActor in Self.hub?.tokenFailed(description) }
    }

    // MARK: - UNUserNotificationCenterDelegate

    /// In the foreground: a withdrawal removes the notification it names; others show as banners.
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification
    ) async -> UNNotificationPresentationOptions {
        guard let received = try? ReceivedNotification(userInfo: notification.request.content.userInfo) else { return [.banner, .sound] }
        if received.withdraws {
            await Self.removeDelivered(tag: received.tag, center: center)
            return []
        }
        return received.message.quiet == true ? [.list] : [.banner, .list, .sound]
    }

    /// A tap opens the screen; a button is carried out, and its outcome shown as a follow-up notification.
    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        let userInfo = response.notification.request.content.userInfo
        guard let received = try? ReceivedNotification(userInfo: userInfo) else { return }
        let identifier = response.actionIdentifier
        if identifier == UNNotificationDefaultActionIdentifier {
            await MainActor.run { _ = Self.hub?.responder.open(received) }
            return
        }
        guard identifier != UNNotificationDismissActionIdentifier else { return }
        let text = (response as? UNTextInputNotificationResponse)?.userText
        let outcome = await Self.perform(identifier, text: text, received)
        let content = UNMutableNotificationContent()
        content.threadIdentifier = received.message.subjectId
        switch outcome {
        case .done(let words):
            content.title = words
            await Self.removeDelivered(tag: received.tag, center: center)
        case .failed(let words):
            content.title = "Nothing was done"
            content.body = words
        }
        let request = UNNotificationRequest(identifier: "outcome-" + received.tag, content: content, trigger: nil)
        try? await center.add(request)
    }

    @MainActor
    private static func perform(_ identifier: String, text: String?, _ received: ReceivedNotification) async -> NotificationActionOutcome {
        guard let hub else { return .failed("Ralph Mobile was not ready: open it to decide.") }
        return await hub.responder.perform(identifier, text: text, on: received)
    }

    private static func removeDelivered(tag: String, center: UNUserNotificationCenter) async {
        let delivered = await center.deliveredNotifications()
        let ids = delivered.filter { note in
            (try? ReceivedNotification(userInfo: note.request.content.userInfo))?.tag == tag
        }.map(\.request.identifier)
        center.removeDeliveredNotifications(withIdentifiers: ids)
    }

    private static func category(_ category: NotificationCategory) -> UNNotificationCategory {
        let actions: [UNNotificationAction] = category.buttons.map { button in
            var options: UNNotificationActionOptions = []
            if button.destructive { options.insert(.destructive) }
            if button.requiresUnlock { options.insert(.authenticationRequired) }
            if button.textInput {
                return UNTextInputNotificationAction(
                    identifier: button.identifier, title: button.title, options: options, textInputButtonTitle: button.sendTitle,
                    textInputPlaceholder: button.placeholder)
            }
            return UNNotificationAction(identifier: button.identifier, title: button.title, options: options)
        }
        return UNNotificationCategory(identifier: category.identifier, actions: actions, intentIdentifiers: [], options: [])
    }
}
