import Foundation
import SQLStore
import RalphAPI

/// The `live_activities` table of the chat database (migration `v5-live-activities`): the Live Activities the
/// server keeps current through APNs, one row per push token (registering a token again replaces its row).
///
/// The state to show is never stored ahead of sending: it is computed from the run or conversation each time, and
/// compared with `last_state`, the last one APNs took. So a crash between a change and its update loses nothing —
/// after the restart the first pass finds the difference and sends it.
final class LiveActivityStore: Sendable {
    static let schema = """
        CREATE TABLE live_activities (
            id TEXT PRIMARY KEY NOT NULL,
            key_id TEXT,
            subject TEXT NOT NULL,
            subject_id TEXT NOT NULL,
            push_token TEXT NOT NULL UNIQUE,
            environment TEXT NOT NULL,
            created_at TEXT NOT NULL,
            last_state TEXT,
            last_sent_at TEXT,
            sent_at REAL,
            updates_sent INTEGER NOT NULL DEFAULT 0,
            attempts INTEGER NOT NULL DEFAULT 0,
            retry_at REAL,
            last_outcome TEXT,
            last_error TEXT
        );
        CREATE INDEX live_activities_subject ON live_activities (subject, subject_id);
        """

    private let database: any SQLDatabase

    init(chat: ChatStore) {
        database = chat.database
    }

    /// Inserts the activity, or replaces the row of the same push token (keeping its id). `lastState` is what the app
    /// says the activity shows now.
    func register(_ request: RegisterLiveActivityRequest, keyID: String?, now: String) async throws -> StoredLiveActivity {
        let state = try request.state.map { String(decoding: try WireJSON.encode($0), as: UTF8.self) }
        let token = request.pushToken.lowercased()
        return try await database.write { db in
            let existing: String? = try await db.first("SELECT id FROM live_activities WHERE push_token = ?", token)?.string("id")
            let id = existing ?? "la-" + UUID().uuidString.lowercased()
            try await db.execute("""
                    INSERT INTO live_activities (id, key_id, subject, subject_id, push_token, environment, created_at, last_state)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET key_id = excluded.key_id, subject = excluded.subject, subject_id = excluded.subject_id,
                        environment = excluded.environment, last_state = excluded.last_state, attempts = 0, retry_at = NULL,
                        last_outcome = NULL, last_error = NULL
                    """,
                arguments: [id, keyID, request.subject.rawValue, request.subjectId, token, request.environment.rawValue, now, state])
            guard let activity = try await Self.activity(id: id, db) else {
                throw ChatStore.StoreError.corruptRow(table: "live_activities", id: id, reason: "not stored")
            }
            return activity
        }
    }

    /// Every activity, or those of one key.
    func activities(keyID: String?? = .none) async throws -> [StoredLiveActivity] {
        let rows: [SQLRow]
        switch keyID {
        case .none: rows = try await database.query("SELECT * FROM live_activities ORDER BY created_at, id")
        case .some(nil): rows = try await database.query("SELECT * FROM live_activities WHERE key_id IS NULL ORDER BY created_at, id")
        case .some(let key?): rows = try await database.query("SELECT * FROM live_activities WHERE key_id = ? ORDER BY created_at, id", [key])
        }
        return try rows.map(Self.activity(row:))
    }

    func activity(id: String) async throws -> StoredLiveActivity? {
        try await database.read { db in try await Self.activity(id: id, db) }
    }

    /// False when there was none.
    @discardableResult
    func remove(id: String) async throws -> Bool {
        try await database.write { db in
            try await !db.query("DELETE FROM live_activities WHERE id = ? RETURNING id", id).isEmpty
        }
    }

    /// What an update attempt gave.
    enum Result: Sendable {
        /// APNs took `state`.
        case sent(LiveActivityState, at: Date)
        /// Try again at `retryAt` (attempt `attempts` failed).
        case retrying(attempts: Int, retryAt: Double, error: String)
        /// Given up on `state` (it is not tried again; the next change is).
        case failed(LiveActivityState, error: String)
        /// The activity already shows the current state: no retry is due.
        case settled
    }

    func record(_ result: Result, id: String) async throws {
        switch result {
        case .sent(let state, let at):
            let json = String(decoding: try WireJSON.encode(state), as: UTF8.self)
            try await database.write { db in
                try await db.execute("""
                        UPDATE live_activities SET last_state = ?, last_sent_at = ?, sent_at = ?, updates_sent = updates_sent + 1, attempts = 0,
                            retry_at = NULL, last_outcome = 'delivered', last_error = NULL WHERE id = ?
                        """,
                    arguments: [json, Timestamp.format(at), at.timeIntervalSince1970, id])
            }
        case .retrying(let attempts, let retryAt, let error):
            try await database.write { db in
                try await db.execute("UPDATE live_activities SET attempts = ?, retry_at = ?, last_outcome = 'retrying', last_error = ? WHERE id = ?",
                    arguments: [attempts, retryAt, error, id])
            }
        case .settled:
            try await database.write { db in
                try await db.execute("UPDATE live_activities SET attempts = 0, retry_at = NULL WHERE id = ?", arguments: [id])
            }
        case .failed(let state, let error):
            let json = String(decoding: try WireJSON.encode(state), as: UTF8.self)
            try await database.write { db in
                try await db.execute("UPDATE live_activities SET last_state = ?, attempts = 0, retry_at = NULL, last_outcome = 'failed', last_error = ? WHERE id = ?",
                    arguments: [json, error, id])
            }
        }
    }

    private static func activity(id: String, _ db: any SQLConnection) async throws -> StoredLiveActivity? {
        try await db.first("SELECT * FROM live_activities WHERE id = ?", id).map(activity(row:))
    }

    private static func activity(row: SQLRow) throws -> StoredLiveActivity {
        let id: String = try row["id"]
        do {
            guard let subject = LiveActivitySubject.Kind(rawValue: try row["subject"]), let environment = APNsEnvironment(rawValue: try row["environment"])
            else {
                throw ChatStore.StoreError.corruptRow(table: "live_activities", id: id, reason: "unknown subject or environment")
            }
            let stateText: String? = try row["last_state"]
            let state = try stateText.map { try WireJSON.decode(LiveActivityState.self, from: Data($0.utf8)) }
            return try StoredLiveActivity(
                id: id, keyID: row["key_id"], subject: subject, subjectID: row["subject_id"], pushToken: row["push_token"], environment: environment,
                createdAt: row["created_at"], lastState: state, lastSentAt: row["last_sent_at"], sentAt: row["sent_at"], updatesSent: row["updates_sent"],
                attempts: row["attempts"], retryAt: row["retry_at"], lastOutcome: row["last_outcome"], lastError: row["last_error"])
        } catch let error as ChatStore.StoreError {
            throw error
        } catch {
            throw ChatStore.StoreError.corruptRow(table: "live_activities", id: id, reason: "\(error)")
        }
    }
}
