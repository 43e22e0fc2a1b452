import Foundation
import Logging
import RalphAPI
import RalphFiles
import ServiceLifecycle
import Synchronization

/// Keeps the registered Live Activities current through APNs `liveactivity` pushes while the app is suspended.
///
/// Runs and conversations that change are touched on ``LiveActivityChanges`` (from the catalog, the conversations'
/// fan-out and run control's pauses); each pass computes the touched subjects' ``LiveActivityState`` with the same
/// ``LiveActivityContent`` rules the app uses, and sends it where it differs from the last state APNs took. A run that
/// ends gets an `end` push and its registration is dropped; a token APNs no longer knows, a revoked key or a subject
/// that is gone drop it too. Routine progress is paced (``NotificationConfiguration/liveActivityMinInterval``) so the
/// phone's update budget is not spent on every event; waiting for a person and the end are sent at once.
final class LiveActivityUpdater: Service, RunCatalogObserver, Sendable {
    /// Where a subject stands now.
    enum Lookup: Sendable, Equatable {
        case current(LiveActivityState)
        /// It no longer exists: its activities are dropped.
        case gone(String)
        /// Cannot be told now (the catalog is starting, a read failed): asked again shortly.
        case unavailable(String)
    }

    struct Dependencies: Sendable {
        var store: LiveActivityStore
        var changes: LiveActivityChanges
        /// Nil without APNs credentials (registration is refused then, with ``unavailable``).
        var apns: APNsSender?
        var unavailable: String
        /// The role a key has now (nil: revoked, unknown).
        var role: @Sendable (String?) -> Role?
        var session: @Sendable (String) async -> Lookup
        var conversation: @Sendable (String) async -> Lookup
        var configuration: NotificationConfiguration
        var logger: Logger
    }

    let dependencies: Dependencies
    /// Activities whose update waits for the pace, and until when.
    private let paced = Mutex<[String: Double]>([:])

    init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    var store: LiveActivityStore { dependencies.store }

    /// Why Live Activities cannot be kept current, or nil when they can.
    var unavailableReason: String? { dependencies.apns == nil ? dependencies.unavailable : nil }

    func catalogDidChange(_ change: RunCatalog.Change) {
        switch change {
        case .added(let snapshot), .appended(let snapshot, _), .updated(let snapshot), .reset(let snapshot):
            dependencies.changes.touch(.session, snapshot.id)
        case .removed(let id):
            dependencies.changes.touch(.session, id)
        }
    }

    // MARK: - Service

    func run() async throws {
        guard dependencies.apns != nil else {
            // Nothing to do, but a service that returns would stop the server: wait for the shutdown.
            try? await gracefulShutdown()
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var everything = true
                while !Task.isCancelled {
                    var next: Double?
                    do {
                        next = try await self.pass(everything: everything, now: Date())
                        everything = false
                    } catch {
                        self.dependencies.logger.error("live activities: \(error); trying again in 5 s")
                        next = Date().timeIntervalSince1970 + 5
                    }
                    let wait = next.map { max(0, $0 - Date().timeIntervalSince1970) } ?? 3600
                    if wait > 0 { await self.dependencies.changes.wake.wait(upTo: .milliseconds(Int(min(wait, 3600) * 1000) + 1)) }
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }

    /// One pass over the activities whose subject changed (all of them when `everything`), or whose retry or paced
    /// update is due. Returns when the next one is due.
    func pass(everything: Bool, now: Date) async throws -> Double? {
        let changed = dependencies.changes.take()
        let activities = try await store.activities()
        let seconds = now.timeIntervalSince1970
        var next: Double?
        var lookups: [LiveActivityChanges.Subject: Lookup] = [:]
        for activity in activities {
            let pacedUntil = paced.withLock { $0[activity.id] }
            let waitingFor = [activity.retryAt, pacedUntil].compactMap { $0 }.min()
            if let waitingFor, waitingFor > seconds {
                next = min(next ?? waitingFor, waitingFor)
                continue
            }
            guard everything || waitingFor != nil || changed.contains(activity.key) else { continue }
            let lookup: Lookup
            if let known = lookups[activity.key] {
                lookup = known
            } else {
                lookup = await (activity.subject == .session ? dependencies.session : dependencies.conversation)(activity.subjectID)
                lookups[activity.key] = lookup
            }
            if let due = try await update(activity, lookup, now: now) { next = min(next ?? due, due) }
        }
        return next
    }

    /// Brings one activity up to `lookup`; returns when to look again, if it must.
    private func update(_ activity: StoredLiveActivity, _ lookup: Lookup, now: Date) async throws -> Double? {
        let logger = dependencies.logger
        guard dependencies.role(activity.keyID) != nil else {
            try await drop(activity, because: "the key that registered it was revoked")
            return nil
        }
        let state: LiveActivityState
        switch lookup {
        case .gone(let why):
            try await drop(activity, because: why)
            return nil
        case .unavailable(let why):
            logger.debug("live activities: \(activity.id) not updated now: \(why)")
            return now.timeIntervalSince1970 + 5
        case .current(let current):
            state = current
        }
        guard state != activity.lastState, let apns = dependencies.apns else {
            // Back to what the phone shows (or nothing can send): a pending retry or paced update has nothing to do.
            paced.withLock { $0[activity.id] = nil }
            if activity.retryAt != nil { try await store.record(.settled, id: activity.id) }
            return nil
        }
        let push = LiveActivityPush.make(from: activity.lastState, to: state, at: now)
        let interval = dependencies.configuration.liveActivityMinInterval
        if !push.urgent, let sentAt = activity.sentAt, now.timeIntervalSince1970 < sentAt + interval {
            paced.withLock { $0[activity.id] = sentAt + interval }
            return sentAt + interval
        }
        paced.withLock { $0[activity.id] = nil }
        let outcome = await apns.send(push, to: activity)
        return try await record(outcome, push: push, activity: activity, now: now)
    }

    private func record(_ outcome: DeliveryOutcome, push: LiveActivityPush, activity: StoredLiveActivity, now: Date) async throws -> Double? {
        let configuration = dependencies.configuration
        switch outcome {
        case .delivered:
            if push.event == .end {
                try await store.remove(id: activity.id)
                dependencies.logger.info("live activities: \(activity.id) ended (\(push.state.phase.rawValue))")
            } else {
                try await store.record(.sent(push.state, at: now), id: activity.id)
            }
            return nil
        case .gone(_, let detail):
            try await drop(activity, because: "APNs no longer knows its push token (\(detail)); the activity ended on the phone")
            return nil
        case .failed(_, let detail):
            try await store.record(.failed(push.state, error: detail), id: activity.id)
            dependencies.logger.warning("live activities: \(activity.id) update failed: \(detail)")
            return nil
        case .retry(_, let detail, let after):
            let attempts = activity.attempts + 1
            guard attempts < configuration.maxAttempts else {
                try await store.record(.failed(push.state, error: detail + " — given up after \(attempts) attempts"), id: activity.id)
                return nil
            }
            let backoff = min(configuration.maxBackoff, pow(2, Double(attempts - 1)))
            let retryAt = now.timeIntervalSince1970 + max(backoff, min(after ?? 0, configuration.maxBackoff))
            try await store.record(.retrying(attempts: attempts, retryAt: retryAt, error: detail), id: activity.id)
            return retryAt
        }
    }

    private func drop(_ activity: StoredLiveActivity, because why: String) async throws {
        try await store.remove(id: activity.id)
        paced.withLock { $0[activity.id] = nil }
        dependencies.logger.info("live activities: stopped updating \(activity.id) (\(activity.subject.rawValue) \(activity.subjectID)): \(why)")
    }
}
