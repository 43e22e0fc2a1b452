import ArgumentParser
import Foundation
import RalphMobileServer

/// The server's notification flags.
struct NotificationOptions: ParsableArguments {
    @Option(
        name: .customLong("public-url"),
        help: ArgumentHelp("The URL phones reach this server at (https://…): links in notifications, ntfy's buttons.", valueName: "url"))
    var publicURL: String?

    @Option(
        name: .customLong("vapid-subject"),
        help: ArgumentHelp("Your contact for Web Push services: mailto:you@example.com or an https: URL (Apple refuses others).", valueName: "subject"))
    var vapidSubject: String?

    @Option(
        name: .customLong("notify-silence"),
        help: ArgumentHelp("Seconds a live run may write nothing before devices are told (0: never).", valueName: "seconds"))
    var silence: Double = 600

    @Option(
        name: .customLong("notify-fold"),
        help: ArgumentHelp("Notifications of one kind to one device within this many seconds arrive as one.", valueName: "seconds"))
    var fold: Double = 10

    @Option(name: .customLong("apns-key"), help: ArgumentHelp("Your APNs token key (AuthKey_XXXXXXXXXX.p8).", valueName: "file"))
    var apnsKey: String?

    @Option(name: .customLong("apns-key-id"), help: ArgumentHelp("The APNs key's id (10 characters).", valueName: "id"))
    var apnsKeyID: String?

    @Option(name: .customLong("apns-team-id"), help: ArgumentHelp("Your Apple developer team id.", valueName: "id"))
    var apnsTeamID: String?

    @Option(name: .customLong("apns-topic"), help: ArgumentHelp("The iOS app's bundle id.", valueName: "bundle-id"))
    var apnsTopic: String?

    @Option(name: .customLong("apns-host"), help: .hidden)
    var apnsHost: String?

    @Option(name: .customLong("apns-ca"), help: .hidden)
    var apnsCA: String?

    func validate() throws {
        if let publicURL {
            guard let url = URL(string: publicURL), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", url.host != nil else {
                throw ValidationError("--public-url must be an absolute http(s) URL, e.g. https://ralph.example.com")
            }
        }
        if !(0...604_800).contains(silence) { throw ValidationError("--notify-silence must be between 0 and 604800 seconds") }
        if !(0...3600).contains(fold) { throw ValidationError("--notify-fold must be between 0 and 3600 seconds") }
        let apns = [apnsKey, apnsKeyID, apnsTeamID, apnsTopic]
        if apns.contains(where: { $0 != nil }) && apns.contains(where: { $0 == nil }) {
            throw ValidationError("APNs needs all of --apns-key, --apns-key-id, --apns-team-id and --apns-topic")
        }
    }

    func apply(to configuration: inout ServerConfiguration) {
        var notifications = configuration.notifications
        notifications.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        notifications.vapidSubject = vapidSubject
        notifications.silenceAfter = silence
        notifications.foldWindow = fold
        if let apnsKey, let apnsKeyID, let apnsTeamID, let apnsTopic {
            notifications.apns = APNsCredentials(
                keyFile: apnsKey, keyID: apnsKeyID, teamID: apnsTeamID, topic: apnsTopic, hostOverride: apnsHost, trustRootsFile: apnsCA)
        }
        configuration.notifications = notifications
    }
}
