import Foundation
import Logging
import RalphAPI

/// Carries the outbox to devices: routes each new event to devices (``NotificationRouting``), then sends what is
/// due, one message per device and kind (``NotificationComposer``), concurrently across devices, recording every
/// attempt. Woken when something is recorded; otherwise it sleeps until the next delivery is due.
///
/// Nothing is lost on a crash: events are routed in one transaction, a delivery stays `pending` until its outcome is
/// stored, and its message id is the same on every attempt (receivers can drop a repeat).
final class NotificationDispatcher: Sendable {
    struct Dependencies: Sendable {
        var store: NotificationStore
        var presence: PresenceBoard
        var senders: [NotificationChannel: any NotificationSender]
        /// Why a channel cannot deliver (APNs without credentials), for its deliveries' failure.
        var unavailable: [NotificationChannel: String]
        /// The role a key has now (nil: revoked, unknown).
        var role: @Sendable (String?) -> Role?
        var actionURL: String
        var configuration: NotificationConfiguration
        var logger: Logger
        /// Where delivery attempts are counted (nil: not counted).
        var metrics: ServerMetrics?
    }

    private let dependencies: Dependencies
    let wake = WakeSignal()

    init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    /// Runs until cancelled.
    func run() async {
        while !Task.isCancelled {
            var next: Double?
            do {
                try await pass(now: Date())
                next = try await dependencies.store.nextDue()
            } catch {
                dependencies.logger.error("notifications: \(error); trying again in 5 s")
                next = Date().timeIntervalSince1970 + 5
            }
            let wait = next.map { max(0, $0 - Date().timeIntervalSince1970) } ?? 3600
            if wait > 0 { await self.wake.wait(upTo: .milliseconds(Int(min(wait, 3600) * 1000) + 1)) }
        }
    }

    /// One pass: route new events, send what is due.
    func pass(now: Date) async throws {
        let store = dependencies.store
        let unrouted = try await store.unroutedEvents()
        if !unrouted.isEmpty {
            let devices = try await store.devices()
            for recorded in unrouted { try await route(recorded, devices: devices, now: now) }
        }
        let due = try await store.due(now: now.timeIntervalSince1970)
        guard !due.isEmpty else { return }
        await withTaskGroup(of: Void.self) { group in
            for batch in Self.batches(due, fold: dependencies.configuration.foldWindow > 0) {
                group.addTask { await self.deliver(batch, now: Date()) }
            }
        }
    }

    private func route(_ recorded: RecordedEvent, devices: [StoredDevice], now: Date) async throws {
        let event = recorded.event
        let store = dependencies.store
        let told = event.withdraw ? try await store.devicesTold(tag: event.tag) : []
        var lastSent: [String: Double] = [:]
        if !event.withdraw {
            for device in devices where device.kinds.contains(event.kind) {
                lastSent[device.id] = try await store.lastSent(deviceID: device.id, kind: event.kind)
            }
        }
        let presence = dependencies.presence
        let inputs = NotificationRouting.Inputs(
            devices: devices, told: told,
            isWatching: { presence.isWatching(keyID: $0, subject: event.subject, subjectID: event.subjectID, now: now) },
            lastSent: lastSent, now: now.timeIntervalSince1970, foldWindow: dependencies.configuration.foldWindow)
        let plan = NotificationRouting.plan(recorded, inputs)
        try await store.route(eventID: recorded.id, deliveries: plan)
        for skipped in plan where skipped.state == "skipped" {
            guard let device = devices.first(where: { $0.id == skipped.deviceID }) else { continue }
            try await store.logSkipped(
                messageID: skipped.messageID, device: device, kind: event.kind, reason: "the person was looking at it", at: now)
        }
    }

    /// Due deliveries grouped into what is sent as one message: per device, each withdrawal alone, the rest by kind.
    /// Without folding (`--notify-fold 0`) every delivery is a message of its own, even when several fell due in
    /// one pass (the dispatcher was behind): each keeps its own text and buttons.
    static func batches(_ due: [DueDelivery], fold: Bool = true) -> [[DueDelivery]] {
        var order: [String] = []
        var groups: [String: [DueDelivery]] = [:]
        for delivery in due {
            let event = delivery.event.event
            let key = event.withdraw || !fold ? "\(delivery.device.id)|one|\(delivery.deliveryID)" : "\(delivery.device.id)|\(event.kind.rawValue)"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(delivery)
        }
        return order.compactMap { groups[$0] }
    }

    /// Sends one message for `batch` (one device) and records the outcome for every delivery it carries.
    private func deliver(_ batch: [DueDelivery], now: Date) async {
        let first = batch[0]
        let device = first.device
        let event = first.event.event
        let configuration = dependencies.configuration
        var minted: [ActionToken] = []
        let mayAct = dependencies.role(device.keyID)?.includes(.operator) ?? false
        let message = NotificationComposer.message(
            for: batch, device: device,
            options: .init(mayAct: mayAct, actionURL: dependencies.actionURL, now: now) { offer in
                let expires = event.content.expiresAt.flatMap(Timestamp.parse) ?? now.addingTimeInterval(configuration.approvalTokenLifetime)
                let (secret, token) = ActionToken.mint(
                    action: offer.action, subject: event.subject, subjectID: event.subjectID, target: offer.target, deviceID: device.id,
                    keyID: device.keyID, expiresAt: expires)
                minted.append(token)
                return secret
            })
        let outcome: DeliveryOutcome
        do {
            for token in minted { try await dependencies.store.storeToken(token) }
            if let sender = dependencies.senders[device.channel] {
                let urgent = event.kind.waitsForPerson
                outcome = await sender.send(message, to: device, urgent: urgent)
            } else {
                outcome = .failed(status: nil, detail: dependencies.unavailable[device.channel] ?? "no sender for \(device.channel.rawValue)")
            }
        } catch {
            outcome = .retry(status: nil, detail: "could not store the action tokens: \(error)", after: nil)
        }
        let record = attemptRecord(outcome, batch: batch, message: message, now: Date())
        dependencies.metrics?.notificationAttempt(channel: device.channel, outcome: record.outcome)
        do {
            try await dependencies.store.finish(record)
        } catch {
            dependencies.logger.error("notifications: could not record the delivery of \(message.id) to \(device.id): \(error)")
        }
        if record.outcome != "delivered" {
            dependencies.logger.warning("notifications: \(record.outcome) \(message.id) to \(device.channel.rawValue) \(device.id): \(record.detail ?? "")")
        }
    }

    /// Sends `message` at once through the device's channel (the test button).
    func sendDirect(_ message: NotificationMessage, to device: StoredDevice) async -> DeliveryOutcome {
        guard let sender = dependencies.senders[device.channel] else {
            return .failed(status: nil, detail: dependencies.unavailable[device.channel] ?? "no sender for \(device.channel.rawValue)")
        }
        return await sender.send(message, to: device, urgent: false)
    }

    private func attemptRecord(_ outcome: DeliveryOutcome, batch: [DueDelivery], message: NotificationMessage, now: Date) -> AttemptRecord {
        let first = batch[0]
        let attempt = first.attempts + 1
        var record = AttemptRecord(
            deliveryIDs: batch.map(\.deliveryID), messageID: message.id, deviceID: first.device.id, channel: first.device.channel,
            kind: first.event.event.kind, attempt: attempt, outcome: "delivered", status: nil, detail: nil, at: now)
        switch outcome {
        case .delivered(let status):
            record.status = status
        case .gone(let status, let detail):
            record.outcome = "expired"
            record.status = status
            record.detail = detail + " — the subscription is gone; the device was removed"
        case .failed(let status, let detail):
            record.outcome = "failed"
            record.status = status
            record.detail = detail
        case .retry(let status, let detail, let after):
            record.status = status
            let configuration = dependencies.configuration
            if attempt >= configuration.maxAttempts {
                record.outcome = "failed"
                record.detail = detail + " — given up after \(attempt) attempts"
            } else {
                record.outcome = "retrying"
                record.detail = detail
                let backoff = min(configuration.maxBackoff, pow(2, Double(attempt - 1)))
                record.retryAt = now.timeIntervalSince1970 + max(backoff, min(after ?? 0, configuration.maxBackoff))
            }
        }
        return record
    }
}
