import SQLStore
import RalphAPI

/// The notification tables, in the chat database (``ChatSchema`` registers them as its `v4` migration) so that a
/// notification caused by a chat step is recorded in that step's transaction.
///
/// - `notification_devices`: registered devices. `registration` is the JSON of the ``RegisterDeviceRequest`` (with
///   its secrets); `target` the channel's identity of the device (endpoint, token, topic URL, webhook URL), unique
///   per channel so that registering again replaces.
/// - `notification_events`: the outbox. `key` is the idempotency key of what caused it; `routed` is set once
///   deliveries were made for it.
/// - `notification_deliveries`: one per event and device: `pending` (due at `due_at`), `sent`, `folded` (sent as part
///   of a folded burst), `failed` (given up), `skipped` (the person was looking at it). `message_id` is the id the
///   device sees, the same for every retry.
/// - `notification_log`: every attempt, for the admin's delivery log.
/// - `notification_tokens`: action tokens, by SHA-256 of the token (the token itself is never stored); single use
///   (`used_at`), expiring.
enum NotificationSchema {
    static let v4 = """
        CREATE TABLE notification_devices (
            id TEXT PRIMARY KEY NOT NULL,
            key_id TEXT,
            name TEXT NOT NULL,
            channel TEXT NOT NULL,
            target TEXT NOT NULL,
            registration TEXT NOT NULL,
            kinds TEXT NOT NULL,
            privacy TEXT NOT NULL,
            quiet_hours TEXT,
            created_at TEXT NOT NULL,
            last_delivered_at TEXT,
            last_error TEXT,
            UNIQUE (channel, target)
        );
        CREATE TABLE notification_events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            key TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            subject TEXT NOT NULL,
            subject_id TEXT NOT NULL,
            tag TEXT NOT NULL,
            content TEXT NOT NULL,
            withdraw INTEGER NOT NULL,
            created_at REAL NOT NULL,
            routed INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX notification_events_unrouted ON notification_events (routed) WHERE routed = 0;
        CREATE TABLE notification_deliveries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            event_id INTEGER NOT NULL REFERENCES notification_events(id) ON DELETE CASCADE,
            device_id TEXT NOT NULL REFERENCES notification_devices(id) ON DELETE CASCADE,
            message_id TEXT NOT NULL UNIQUE,
            state TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            due_at REAL NOT NULL,
            sent_at REAL,
            UNIQUE (event_id, device_id)
        );
        CREATE INDEX notification_deliveries_due ON notification_deliveries (state, due_at);
        CREATE TABLE notification_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            message_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            channel TEXT NOT NULL,
            kind TEXT NOT NULL,
            attempt INTEGER NOT NULL,
            outcome TEXT NOT NULL,
            status INTEGER,
            detail TEXT,
            at TEXT NOT NULL
        );
        CREATE TABLE notification_tokens (
            hash TEXT PRIMARY KEY NOT NULL,
            action TEXT NOT NULL,
            subject TEXT NOT NULL,
            subject_id TEXT NOT NULL,
            target TEXT NOT NULL,
            device_id TEXT NOT NULL,
            key_id TEXT,
            expires_at REAL NOT NULL,
            used_at REAL
        );
        """

    /// Records `event` unless an event with its key was recorded before (then nothing changes).
    static func record(_ event: NotificationEvent, now: Double, _ db: any SQLConnection) async throws {
        let content = String(decoding: try WireJSON.encode(event.content), as: UTF8.self)
        try await db.execute("""
                INSERT INTO notification_events (key, kind, subject, subject_id, tag, content, withdraw, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO NOTHING
                """,
            arguments: [event.key, event.kind.rawValue, event.subject, event.subjectID, event.tag, content, event.withdraw, now]
        )
    }
}
