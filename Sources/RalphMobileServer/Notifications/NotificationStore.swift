import Foundation
import SQLStore
import RalphAPI

/// The notification tables of the chat database (``NotificationSchema``): devices, the outbox, deliveries, the
/// delivery log and action tokens. Shares ``ChatStore``'s pool, hence its one writer.
final class NotificationStore: Sendable {
    private let database: any SQLDatabase

    init(chat: ChatStore) {
        database = chat.database
    }

    // MARK: - Devices

    /// Inserts the device, or replaces the registration of the one with the same channel and target (keeping its id,
    /// and the kinds, privacy and quiet hours it chose unless the new registration gives them: an app registering its
    /// token again at each launch keeps the person's choices).
    ///
    /// With `replaces_endpoint` (a browser rotated its push subscription), the web push device with that endpoint
    /// is taken over in the same transaction: its name, kinds, privacy and quiet hours carry over (the latter three
    /// unless given; a device already registered with the new endpoint keeps its own), its pending deliveries move to
    /// the new device, and it is deleted. It must belong to `keyID` (`403` otherwise, and nothing changes: a key must
    /// not take over another key's device, or move it under itself). An unknown endpoint replaces nothing.
    func register(_ given: RegisterDeviceRequest, keyID: String?, now: String) async throws -> StoredDevice {
        let target = StoredDevice.target(of: given)
        return try await database.write { db in
            let existing = try await Self.device(channel: given.channel, target: target, db)
            var replaced: StoredDevice?
            if let old = given.replacesEndpoint, old != target, let found = try await Self.device(channel: .webPush, target: old, db) {
                guard found.keyID == keyID else {
                    throw APIError.forbiddenAction("replaces_endpoint names a device another key registered; it was not replaced")
                }
                replaced = found
            }
            var registration = given
            registration.replacesEndpoint = nil
            if let kept = existing?.registration ?? replaced?.registration {
                if existing == nil { registration.name = kept.name }
                registration.kinds = given.kinds ?? kept.kinds
                registration.privacy = given.privacy ?? kept.privacy
                registration.quietHours = given.quietHours ?? kept.quietHours
            }
            let id = existing?.id ?? "dev-" + UUID().uuidString.lowercased()
            try await db.execute("""
                    INSERT INTO notification_devices (id, key_id, name, channel, target, registration, kinds, privacy, quiet_hours, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET key_id = excluded.key_id, name = excluded.name, registration = excluded.registration,
                        kinds = excluded.kinds, privacy = excluded.privacy, quiet_hours = excluded.quiet_hours, last_error = NULL
                    """,
                arguments: [id, keyID, registration.name, registration.channel.rawValue, target] + (try Self.columns(of: registration)) + [now] as [any SQLBindable])
            if let replaced {
                // A delivery the new device already has for the same event stays; the old one goes with its device.
                try await db.execute(
                    """
                    UPDATE notification_deliveries SET device_id = ? WHERE device_id = ? AND state = 'pending'
                        AND NOT EXISTS (SELECT 1 FROM notification_deliveries other WHERE other.device_id = ? AND other.event_id = notification_deliveries.event_id)
                    """,
                    arguments: [id, replaced.id, id])
                try await db.execute("DELETE FROM notification_devices WHERE id = ?", arguments: [replaced.id])
            }
            guard let device = try await Self.device(id: id, db) else {
                throw ChatStore.StoreError.corruptRow(table: "notification_devices", id: id, reason: "not stored")
            }
            return device
        }
    }

    private static func device(channel: NotificationChannel, target: String, _ db: any SQLConnection) async throws -> StoredDevice? {
        try await db.first("SELECT * FROM notification_devices WHERE channel = ? AND target = ?", channel.rawValue, target).map(device(row:))
    }

    /// The JSON columns of a registration: itself (with its secrets), its kinds, its privacy, its quiet hours.
    private static func columns(of registration: RegisterDeviceRequest) throws -> [any SQLBindable] {
        let json = String(decoding: try WireJSON.encode(registration), as: UTF8.self)
        let kinds = NotificationKind.allCases.filter(Set(registration.kinds ?? NotificationKind.allCases).contains)
        let quiet = try registration.quietHours.map { String(decoding: try WireJSON.encode($0), as: UTF8.self) }
        return [json, String(decoding: try WireJSON.encode(kinds), as: UTF8.self), (registration.privacy ?? .full).rawValue, quiet]
    }

    func device(id: String) async throws -> StoredDevice? {
        try await database.read { db in try await Self.device(id: id, db) }
    }

    /// Every device, or those of one key.
    func devices(keyID: String?? = .none) async throws -> [StoredDevice] {
        let rows: [SQLRow]
        switch keyID {
        case .none: rows = try await database.query("SELECT * FROM notification_devices ORDER BY created_at, id")
        case .some(nil): rows = try await database.query("SELECT * FROM notification_devices WHERE key_id IS NULL ORDER BY created_at, id")
        case .some(let key?): rows = try await database.query("SELECT * FROM notification_devices WHERE key_id = ? ORDER BY created_at, id", [key])
        }
        return try rows.map(Self.device(row:))
    }

    /// Stores a changed registration (name, kinds, privacy, quiet hours).
    func update(_ device: StoredDevice) async throws {
        let arguments = [device.registration.name] + (try Self.columns(of: device.registration)) + [device.id] as [any SQLBindable]
        try await database.write { db in
            try await db.execute("UPDATE notification_devices SET name = ?, registration = ?, kinds = ?, privacy = ?, quiet_hours = ? WHERE id = ?",
                arguments: arguments)
        }
    }

    /// Removes a device and its pending deliveries. False when there was none.
    @discardableResult
    func remove(deviceID: String) async throws -> Bool {
        try await database.write { db in
            try await !db.query("DELETE FROM notification_devices WHERE id = ? RETURNING id", deviceID).isEmpty
        }
    }

    private static func device(id: String, _ db: any SQLConnection) async throws -> StoredDevice? {
        try await db.first("SELECT * FROM notification_devices WHERE id = ?", id).map(device(row:))
    }

    private static func device(row: SQLRow) throws -> StoredDevice {
        let id: String = try row["id"]
        let json: String = try row["registration"]
        do {
            let registration = try WireJSON.decode(RegisterDeviceRequest.self, from: Data(json.utf8))
            return try StoredDevice(
                id: id, keyID: row["key_id"], registration: registration, createdAt: row["created_at"], lastDeliveredAt: row["last_delivered_at"],
                lastError: row["last_error"])
        } catch {
            throw ChatStore.StoreError.corruptRow(table: "notification_devices", id: id, reason: "\(error)")
        }
    }

    // MARK: - Outbox

    /// Records events caused outside a chat step (runs): each once per key.
    func record(_ events: [NotificationEvent], now: Date) async throws {
        guard !events.isEmpty else { return }
        try await database.write { db in
            for event in events { try await NotificationSchema.record(event, now: now.timeIntervalSince1970, db) }
        }
    }

    /// Whether an event with this key was recorded.
    func hasEvent(key: String) async throws -> Bool {
        try await database.first("SELECT 1 AS found FROM notification_events WHERE key = ?", [key]) != nil
    }

    /// Events not yet routed to devices, oldest first.
    func unroutedEvents(limit: Int = 500) async throws -> [RecordedEvent] {
        try await database.query("SELECT * FROM notification_events WHERE routed = 0 ORDER BY id LIMIT ?", [limit]).map(RecordedEvent.init(row:))
    }

    /// Devices that were sent (or are about to be sent) a notification with `tag`: who a withdrawal goes to.
    func devicesTold(tag: String) async throws -> Set<String> {
        Set(
            try await database.query(
                """
                SELECT DISTINCT d.device_id FROM notification_deliveries d JOIN notification_events e ON e.id = d.event_id
                WHERE e.tag = ? AND e.withdraw = 0 AND d.state IN ('sent', 'folded', 'pending')
                """, [tag]
            ).map { try $0.string("device_id") })
    }

    /// When `deviceID` was last sent a notification of `kind` (for folding bursts).
    func lastSent(deviceID: String, kind: NotificationKind) async throws -> Double? {
        try await database.first(
            """
            SELECT MAX(d.sent_at) AS last FROM notification_deliveries d JOIN notification_events e ON e.id = d.event_id
            WHERE d.device_id = ? AND e.kind = ? AND e.withdraw = 0 AND d.state = 'sent'
            """, [deviceID, kind.rawValue]
        )?.optionalDouble("last")
    }

    /// Makes the deliveries of one event, and marks it routed: one transaction, so a restart routes it again or not at
    /// all. Skipped deliveries (`state: skipped`) are logged.
    func route(eventID: Int64, deliveries: [PlannedDelivery]) async throws {
        try await database.write { db in
            for delivery in deliveries {
                try await db.execute("""
                        INSERT INTO notification_deliveries (event_id, device_id, message_id, state, due_at) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT(event_id, device_id) DO NOTHING
                        """,
                    arguments: [eventID, delivery.deviceID, delivery.messageID, delivery.state, delivery.dueAt])
            }
            try await db.execute("UPDATE notification_events SET routed = 1 WHERE id = ?", arguments: [eventID])
        }
    }

    /// Pending deliveries due by `now`, with their event and device, oldest first.
    func due(now: Double, limit: Int = 200) async throws -> [DueDelivery] {
        try await database.read { db in
            let rows = try await db.query(
                """
                SELECT d.id AS delivery_id, d.message_id, d.attempts, d.device_id, e.*
                FROM notification_deliveries d JOIN notification_events e ON e.id = d.event_id
                WHERE d.state = 'pending' AND d.due_at <= ? ORDER BY d.due_at, d.id LIMIT ?
                """, now, limit)
            var devices: [String: StoredDevice] = [:]
            var due: [DueDelivery] = []
            for row in rows {
                let deviceID: String = try row["device_id"]
                if devices[deviceID] == nil { devices[deviceID] = try await Self.device(id: deviceID, db) }
                guard let device = devices[deviceID] else { continue }
                due.append(try DueDelivery(
                    deliveryID: row["delivery_id"], messageID: row["message_id"], attempts: row["attempts"], device: device,
                    event: try RecordedEvent(row: row)))
            }
            return due
        }
    }

    /// The earliest `due_at` of a pending delivery.
    func nextDue() async throws -> Double? {
        try await database.first("SELECT MIN(due_at) AS next FROM notification_deliveries WHERE state = 'pending'")?.optionalDouble("next")
    }

    /// Records the outcome of one attempt that carried `deliveryIDs` (one, or a folded burst) to a device.
    func finish(_ attempt: AttemptRecord) async throws {
        try await database.write { db in
            for id in attempt.deliveryIDs {
                if let retryAt = attempt.retryAt {
                    try await db.execute("UPDATE notification_deliveries SET attempts = attempts + 1, due_at = ? WHERE id = ?", arguments: [retryAt, id])
                } else {
                    let state = attempt.outcome == "delivered" ? (id == attempt.deliveryIDs.first ? "sent" : "folded") : "failed"
                    try await db.execute("UPDATE notification_deliveries SET attempts = attempts + 1, state = ?, sent_at = ? WHERE id = ?",
                        arguments: [state, attempt.at.timeIntervalSince1970, id])
                }
            }
            try await db.execute("""
                    INSERT INTO notification_log (message_id, device_id, channel, kind, attempt, outcome, status, detail, at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    attempt.messageID, attempt.deviceID, attempt.channel.rawValue, attempt.kind.rawValue, attempt.attempt, attempt.outcome,
                    attempt.status, attempt.detail, Timestamp.format(attempt.at),
                ])
            if attempt.outcome == "delivered" {
                try await db.execute("UPDATE notification_devices SET last_delivered_at = ?, last_error = NULL WHERE id = ?",
                    arguments: [Timestamp.format(attempt.at), attempt.deviceID])
            } else if let detail = attempt.detail {
                try await db.execute("UPDATE notification_devices SET last_error = ? WHERE id = ?", arguments: [detail, attempt.deviceID])
            }
            if attempt.outcome == "expired" {
                try await db.execute("DELETE FROM notification_devices WHERE id = ?", arguments: [attempt.deviceID])
            }
        }
    }

    /// Logs a delivery that was not attempted (the person was looking at the thing).
    func logSkipped(messageID: String, device: StoredDevice, kind: NotificationKind, reason: String, at: Date) async throws {
        try await database.write { db in
            try await db.execute("""
                    INSERT INTO notification_log (message_id, device_id, channel, kind, attempt, outcome, status, detail, at)
                    VALUES (?, ?, ?, ?, 0, 'skipped', NULL, ?, ?)
                    """,
                arguments: [messageID, device.id, device.channel.rawValue, kind.rawValue, reason, Timestamp.format(at)])
        }
    }

    /// The delivery log, newest first.
    func log(limit: Int, deviceID: String? = nil) async throws -> [NotificationDelivery] {
        let rows =
            if let deviceID {
                try await database.query("SELECT * FROM notification_log WHERE device_id = ? ORDER BY id DESC LIMIT ?", [deviceID, limit])
            } else {
                try await database.query("SELECT * FROM notification_log ORDER BY id DESC LIMIT ?", [limit])
            }
        return try rows.compactMap { row in
            guard let channel = NotificationChannel(rawValue: try row["channel"]), let kind = NotificationKind(rawValue: try row["kind"]) else { return nil }
            return try NotificationDelivery(
                id: row["id"], messageId: row["message_id"], deviceId: row["device_id"], channel: channel, kind: kind, attempt: row["attempt"],
                outcome: row["outcome"], status: row["status"], detail: row["detail"], at: row["at"])
        }
    }

    // MARK: - Action tokens

    func storeToken(_ token: ActionToken) async throws {
        try await database.write { db in
            try await db.execute("""
                    INSERT INTO notification_tokens (hash, action, subject, subject_id, target, device_id, key_id, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    token.hash, token.action, token.subject, token.subjectID, token.target, token.deviceID, token.keyID,
                    token.expiresAt.timeIntervalSince1970,
                ])
        }
    }

    /// Uses the token with `hash` once: returns it, and marks it used, only if it exists, is unused and has not
    /// expired; otherwise says which of those it is, and changes nothing.
    func consumeToken(hash: String, now: Date) async throws -> Result<ActionToken, ActionToken.Refusal> {
        try await database.write { db in
            guard let row = try await db.first("SELECT * FROM notification_tokens WHERE hash = ?", hash) else {
                return .failure(.unknown)
            }
            let token = try ActionToken(
                hash: hash, action: row["action"], subject: row["subject"], subjectID: row["subject_id"], target: row["target"],
                deviceID: row["device_id"], keyID: row["key_id"], expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
            if (try row["used_at"] as Double?) != nil { return .failure(.used) }
            if token.expiresAt <= now { return .failure(.expired) }
            let used = try await db.query(
                "UPDATE notification_tokens SET used_at = ? WHERE hash = ? AND used_at IS NULL RETURNING hash", now.timeIntervalSince1970, hash)
            return used.count == 1 ? .success(token) : .failure(.used)
        }
    }

    /// Gives a consumed token back (the action it carried could not be done, e.g. the store failed).
    func releaseToken(hash: String) async throws {
        try await database.write { db in try await db.execute("UPDATE notification_tokens SET used_at = NULL WHERE hash = ?", arguments: [hash]) }
    }

    /// Drops tokens that expired more than a day ago.
    func pruneTokens(now: Date) async throws {
        try await database.write { db in
            try await db.execute("DELETE FROM notification_tokens WHERE expires_at < ?", arguments: [now.timeIntervalSince1970 - 86400])
        }
    }
}

/// An outbox row.
struct RecordedEvent: Sendable, Hashable {
    var id: Int64
    var event: NotificationEvent
    var createdAt: Double

    init(id: Int64, event: NotificationEvent, createdAt: Double) {
        self.id = id
        self.event = event
        self.createdAt = createdAt
    }

    init(row: SQLRow) throws {
        id = try row["id"]
        let contentJSON: String = try row["content"]
        let key: String = try row["key"]
        guard let kind = NotificationKind(rawValue: try row["kind"]) else {
            throw ChatStore.StoreError.corruptRow(table: "notification_events", id: key, reason: "unknown kind")
        }
        let content: NotificationContent
        do {
            content = try WireJSON.decode(NotificationContent.self, from: Data(contentJSON.utf8))
        } catch {
            throw ChatStore.StoreError.corruptRow(table: "notification_events", id: key, reason: "\(error)")
        }
        event = try NotificationEvent(
            key: key, kind: kind, subject: row["subject"], subjectID: row["subject_id"], tag: row["tag"], content: content, withdraw: row["withdraw"])
        createdAt = try row["created_at"]
    }
}

/// A delivery to make when routing an event.
struct PlannedDelivery: Sendable, Hashable {
    var deviceID: String
    var messageID: String
    /// `pending` or `skipped`.
    var state: String
    var dueAt: Double
}

/// A pending delivery that is due.
struct DueDelivery: Sendable {
    var deliveryID: Int64
    var messageID: String
    var attempts: Int
    var device: StoredDevice
    var event: RecordedEvent
}

/// One attempt's outcome, for ``NotificationStore/finish(_:)``.
struct AttemptRecord: Sendable {
    var deliveryIDs: [Int64]
    var messageID: String
    var deviceID: String
    var channel: NotificationChannel
    var kind: NotificationKind
    var attempt: Int
    /// `delivered`, `retrying`, `failed`, `expired`.
    var outcome: String
    var status: Int?
    var detail: String?
    var at: Date
    /// Set when it is to be tried again.
    var retryAt: Double?
}
