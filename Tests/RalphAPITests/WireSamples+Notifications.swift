import Foundation
import Testing

import RalphAPI

extension WireSamples {
    static let webPush = WebPushSubscription(
        endpoint: "https://push.example.net/wpush/v2/abc", keys: .init(p256dh: "BNJRPxdwNKrEAmvbQuJ5CyZhiqwgg3wmgAZXMwEA", auth: "hU_cftQ35tavDF12kmcNsA"))
    static let apnsDevice = APNsDevice(deviceToken: String(repeating: "ab", count: 32), environment: .sandbox)
    static let ntfy = NtfyTopic(url: "https://ntfy.sh/ralph-test", token: "tk_123")
    static let webhookTarget = WebhookTarget(url: "https://hooks.example/ralph", secret: "0123456789abcdef0123")
    static let quietHours = QuietHours(start: "22:00", end: "07:00", timeZone: "Europe/Paris")
    static let notificationDevice = NotificationDevice(
        id: "dev-1", name: "Pixel", channel: .webPush, kinds: [.approval, .question], privacy: .private, quietHours: quietHours,
        target: "push.example.net", keyId: "k1", createdAt: ts, lastDeliveredAt: later, lastError: nil, webhookSecret: nil)
    static let notificationAction = NotificationAction(action: "allow", title: "Allow", token: "rmact_00ff", url: "/api/notifications/actions", input: false)
    static let notificationMessage = NotificationMessage(
        id: "m3-dev-1", kind: .approval, subject: "conversation", subjectId: "c-1", title: "app: Bash wants approval", body: "npm test",
        tag: "approval-a-1", path: "/#/chats/c-1", actions: [notificationAction], count: nil, expiresAt: later, withdraw: nil, quiet: true, createdAt: ts)
    static let notificationDelivery = NotificationDelivery(
        id: 4, messageId: "m3-dev-1", deviceId: "dev-1", channel: .webhook, kind: .runFinished, attempt: 2, outcome: "retrying", status: 503,
        detail: "HTTP 503", at: ts)

    static let liveActivityRegistration = LiveActivityRegistration(
        id: "la-1", subject: .session, subjectId: "s-1", environment: .sandbox, createdAt: ts, lastState: LiveActivityState(phase: .paused, iteration: 2),
        lastSentAt: later, updatesSent: 3, lastOutcome: "retrying", lastError: "APNs 503")

    static let notifications: [WireSample] = [
        .codable(webPush), .codable(apnsDevice), .codable(ntfy), .codable(ntfy.with { $0.token = nil }, "no token"), .codable(webhookTarget),
        .codable(quietHours), .codable(notificationDevice), .codable(NotificationDeviceList(devices: [notificationDevice])), .codable(notificationAction), .codable(notificationMessage),
        .codable(NotificationMessage(
            id: "m4-dev-1", kind: .question, subject: "session", subjectId: "s-1", title: "Closed", body: "", tag: "question-s-1-5",
            path: "/#/sessions/s-1", actions: [], withdraw: true, createdAt: ts), "withdrawal"),
        .codable(NotificationActionRequest(token: "rmact_00ff", text: "SQLite")),
        .codable(NotificationActionResponse(action: "answer", subject: "session", subjectId: "s-1", detail: "Answered (s-1-5)")),
        .codable(notificationDelivery), .codable(NotificationDeliveryList(deliveries: [notificationDelivery])),
        .codable(NotificationSettings(
            vapidPublicKey: "BMV7_T16hpya", channels: [.init(channel: .apns, available: false, reason: "not configured"), .init(channel: .webPush, available: true)],
            silenceSeconds: 600, coalesceSeconds: 10)),
        .codable(PresenceReport(deviceId: "dev-1", foreground: true, screen: "session", subjectId: "s-1")),
        .codable(RegisterDeviceRequest(name: "Pixel", channel: .webPush, kinds: [.approval], privacy: .full, quietHours: quietHours, webPush: webPush)),
        .codable(RegisterDeviceRequest(name: "iPhone", channel: .apns, apns: apnsDevice), "apns"),
        .codable(
            RegisterDeviceRequest(name: "Firefox", channel: .webPush, webPush: webPush, replacesEndpoint: "https://push.example.net/wpush/v2/old"),
            "replacing a rotated subscription"),
        .codable(UpdateDeviceRequest(name: "Phone", kinds: [.runFinished], privacy: .private, quietHours: nil, clearQuietHours: true)),
        .codable(LiveActivityState(
            phase: .waitingForAnswer, iteration: 3, total: 10, hat: "builder", lastEvent: "human.interact", lastEventAt: ts,
            backpressure: .init(passed: 12, failed: 1, text: "1 failing", blocked: true), waiting: .init(what: "question", detail: "Ship it?", count: 1, until: later),
            endReason: nil)),
        .codable(LiveActivitySubject(kind: .session, id: "s-1", title: "Build the thing", path: "/#/sessions/s-1")),
        .codable(RegisterLiveActivityRequest(
            subject: .conversation, subjectId: "c-1", pushToken: String(repeating: "cd", count: 32), environment: .production,
            state: LiveActivityState(phase: .running, iteration: 0))),
        .codable(RegisterLiveActivityRequest(subject: .session, subjectId: "s-1", pushToken: "cdcd", environment: .sandbox), "no state"),
        .codable(liveActivityRegistration), .codable(LiveActivityRegistrationList(liveActivities: [liveActivityRegistration])),
    ] + WireSample.cases(NotificationKind.allCases) + WireSample.cases(NotificationChannel.allCases)
        + WireSample.cases(NotificationPrivacy.allCases) + WireSample.cases([APNsEnvironment.sandbox, .production])
}

extension NtfyTopic {
    func with(_ change: (inout NtfyTopic) -> Void) -> NtfyTopic {
        var copy = self
        change(&copy)
        return copy
    }
}
