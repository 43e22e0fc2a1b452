import Foundation
import Logging
import RalphAPI
import RalphFiles
import RalphNotify
import ServiceLifecycle
import Synchronization

/// Notifications: the outbox in the chat database, the dispatcher that carries it to devices, presence, and the
/// producers — chat steps record their notifications themselves (``ChatNotificationRules``, in the step's
/// transaction, then call ``wake()``); runs are heard from the catalog (``RunNotificationRules``) and checked for
/// silence.
///
/// A ServiceLifecycle service: its tasks (dispatcher, catalog changes, silence checks) run in ``run()`` and end with it.
final class Notifier: Service, RunCatalogObserver, Sendable {
    let store: NotificationStore
    let presence = PresenceBoard()
    let configuration: NotificationConfiguration
    let vapid: VAPID
    /// Whether the VAPID subject was given (`--vapid-subject`) or made up from the host name.
    let vapidSubjectGiven: Bool
    let channelStates: [NotificationSettings.ChannelState]
    let dispatcher: NotificationDispatcher
    /// The APNs channel (Live Activities use it too), or why there is none.
    let apns: Result<APNsSender, UnavailableChannel>
    private let changes: AsyncStream<RunCatalog.Change>
    private let changeInput: AsyncStream<RunCatalog.Change>.Continuation
    private let runs: Mutex<RunNotificationRules> = Mutex(.init())
    private let snapshots: @Sendable () -> [RunSnapshot]
    private let isPaused: @Sendable (String) -> Bool
    private let logger: Logger

    struct Parts {
        var store: NotificationStore
        var configuration: NotificationConfiguration
        var vapid: VAPID
        var vapidSubjectGiven: Bool
        var senders: [NotificationChannel: any NotificationSender]
        var unavailable: [NotificationChannel: String]
        var role: @Sendable (String?) -> Role?
        var snapshots: @Sendable () -> [RunSnapshot]
        var isPaused: @Sendable (String) -> Bool
        var logger: Logger
        /// Where delivery attempts are counted (nil: not counted).
        var metrics: ServerMetrics? = nil
    }

    init(_ parts: Parts) {
        store = parts.store
        configuration = parts.configuration
        vapid = parts.vapid
        vapidSubjectGiven = parts.vapidSubjectGiven
        snapshots = parts.snapshots
        isPaused = parts.isPaused
        logger = parts.logger
        channelStates = NotificationChannel.allCases.map { channel in
            if let reason = parts.unavailable[channel] { return .init(channel: channel, available: false, reason: reason) }
            if channel == .ntfy, parts.configuration.publicURL == nil {
                return .init(channel: channel, available: true, reason: "without --public-url, ntfy notifications carry no buttons")
            }
            if channel == .webPush, !parts.vapidSubjectGiven {
                return .init(
                    channel: channel, available: true,
                    reason: "VAPID subject \(parts.vapid.subject) was made up from the host name; set --vapid-subject to your mailto: or https: address")
            }
            return .init(channel: channel, available: true)
        }
        if let sender = parts.senders[.apns] as? APNsSender {
            apns = .success(sender)
        } else {
            apns = .failure(UnavailableChannel(reason: parts.unavailable[.apns] ?? "APNs is not configured"))
        }
        (changes, changeInput) = AsyncStream.makeStream()
        let actionURL = (parts.configuration.publicURL ?? "") + "/api/notifications/actions"
        dispatcher = NotificationDispatcher(.init(
            store: parts.store, presence: presence, senders: parts.senders, unavailable: parts.unavailable, role: parts.role, actionURL: actionURL,
            configuration: parts.configuration, logger: parts.logger, metrics: parts.metrics))
    }

    /// Something was recorded in the outbox: deliver it now.
    func wake() { dispatcher.wake.signal() }

    // MARK: - Runs

    /// On the catalog's thread: queued, handled in order by ``run()``.
    func catalogDidChange(_ change: RunCatalog.Change) {
        changeInput.yield(change)
    }

    private func handle(_ change: RunCatalog.Change) async {
        let events = runs.withLock { $0.events(for: change, now: Date()) }
        await record(events)
    }

    private func checkSilence() async {
        guard configuration.silenceAfter > 0 else { return }
        let all = snapshots()
        let paused = isPaused
        let events = runs.withLock { $0.silentRuns(all, threshold: configuration.silenceAfter, paused: paused, now: Date()) }
        await record(events)
    }

    private func record(_ events: [NotificationEvent]) async {
        guard !events.isEmpty else { return }
        do {
            try await store.record(events, now: Date())
            wake()
        } catch {
            logger.error("notifications: could not record \(events.map(\.key)): \(error)")
        }
    }

    // MARK: - Service

    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.dispatcher.run() }
            group.addTask {
                for await change in self.changes { await self.handle(change) }
            }
            group.addTask {
                let period = max(1, min(30, self.configuration.silenceAfter / 4))
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(Int(period * 1000)))
                    await self.checkSilence()
                    try? await self.store.pruneTokens(now: Date())
                }
            }
            try? await gracefulShutdown()
            changeInput.finish()
            group.cancelAll()
        }
    }

    // MARK: - Settings

    /// For `GET /api/health`: `notify:<channel>` or `notify_unavailable:<channel>`.
    var capabilities: [String] {
        channelStates.map { ($0.available ? "notify:" : "notify_unavailable:") + $0.channel.rawValue }
    }

    var settings: NotificationSettings {
        NotificationSettings(
            vapidPublicKey: vapid.publicKey, channels: channelStates, silenceSeconds: Int(configuration.silenceAfter),
            coalesceSeconds: Int(configuration.foldWindow))
    }
}

/// Why a channel cannot deliver.
struct UnavailableChannel: Error, Sendable {
    var reason: String
}
