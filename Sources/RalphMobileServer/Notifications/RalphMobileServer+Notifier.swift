import Foundation
import Logging
import RalphAPI
import RalphFiles
import AgentRunner
import RalphNotify
import Crypto

extension RalphMobileServer {
    /// The notifier with its channels: Web Push (VAPID key from the data directory), ntfy and webhooks always; APNs
    /// when its credentials were given (else the settings and every APNs delivery say what is missing).
    static func makeNotifier(
        configuration: ServerConfiguration, store: NotificationStore, authenticator: Authenticator, catalog: RunCatalog, supervisor: RunSupervisor,
        logger: Logger, metrics: ServerMetrics? = nil
    ) throws(StartupError) -> Notifier {
        let settings = configuration.notifications
        let key: P256.Signing.PrivateKey
        do {
            key = try VAPIDKeyFile.loadOrCreate(path: configuration.vapidKeyFile)
        } catch {
            throw StartupError(error.description)
        }
        let subject = settings.vapidSubject ?? defaultVAPIDSubject(publicURL: settings.publicURL)
        let vapid: VAPID
        do {
            vapid = try VAPID(key: key, subject: subject)
        } catch {
            throw StartupError("--vapid-subject: \(error)")
        }
        let http = PushHTTP()
        var senders: [NotificationChannel: any NotificationSender] = [
            .webPush: WebPushSender(http: http, vapid: vapid),
            .ntfy: NtfySender(http: http, publicURL: settings.publicURL),
            .webhook: WebhookSender(http: http),
        ]
        var unavailable: [NotificationChannel: String] = [:]
        if let apns = settings.apns {
            do {
                senders[.apns] = try APNsSender(credentials: apns, http: http)
            } catch {
                throw StartupError("APNs: \(error)")
            }
        } else {
            unavailable[.apns] = "APNs is not configured: start the server with --apns-key <AuthKey.p8>, --apns-key-id, --apns-team-id and --apns-topic <bundle id>"
        }
        var notifierLogger = logger
        notifierLogger[metadataKey: "area"] = "notifications"
        return Notifier(.init(
            store: store, configuration: settings, vapid: vapid, vapidSubjectGiven: settings.vapidSubject != nil, senders: senders,
            unavailable: unavailable, role: { [authenticator] in authenticator.currentRole(keyID: $0) }, snapshots: { [catalog] in catalog.snapshots() },
            isPaused: { [supervisor] in supervisor.isPaused($0) }, logger: notifierLogger, metrics: metrics))
    }

    /// Without `--vapid-subject`: the public URL when it is https, else a mailto: address at this host's name.
    static func defaultVAPIDSubject(publicURL: String?) -> String {
        if let publicURL, publicURL.lowercased().hasPrefix("https://") { return publicURL }
        let host = ProcessInfo.processInfo.hostName.isEmpty ? "localhost" : ProcessInfo.processInfo.hostName
        return "mailto:ralph-mobile@\(host)"
    }
}
