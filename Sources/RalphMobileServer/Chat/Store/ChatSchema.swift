import SQLStore

/// The chat database's schema, as a list of named migrations (`v1-…`, then `v2-…`, …).
///
/// Never edit a migration once it has shipped: add a new one. ``ChatStore`` refuses a database that has migrations
/// this build does not know (it was written by a newer server).
///
/// ## Tables (v1)
///
/// Every table but `conversation_events` has an `INTEGER PRIMARY KEY AUTOINCREMENT` column (`position` or `seq`):
/// SQLite assigns it on the first insert, it only grows, and it is never reused, even after deletes. Upserts go
/// through `INSERT … ON CONFLICT(id) DO UPDATE`, which keeps it, so a row keeps its place in every ordering. The
/// wire id is `TEXT NOT NULL UNIQUE` (the natural key; foreign keys point at it).
///
/// - `conversations`: every ``Conversation`` field (`usage` as JSON text); `position` breaks ties of
///   `last_activity_at` in the list order (`last_activity_at DESC, position DESC`).
/// - `messages`: every ``ChatMessage`` field (`tool_calls` as a JSON array, `usage` as JSON or NULL); `seq` is the
///   chronological order of a conversation's messages.
/// - `turns`: every ``Turn`` field (`usage` as JSON or NULL); `seq` is the queue (creation) order.
/// - `approvals`: every ``Approval`` field (`input` and `suggestions` as JSON text); `seq` is creation order.
/// - `conversation_events`: the conversation SSE stream, `PRIMARY KEY (conversation_id, seq)`, `seq` being 1, 2, 3 …
///   per conversation with no gaps; `data` is the event's JSON bytes (BLOB).
///
/// Messages, turns, approvals and events belong to a conversation (`ON DELETE CASCADE`). `turn_id` columns are plain
/// columns, not foreign keys: the driver may store a message or an approval before its turn row in the same batch.
enum ChatSchema {
    /// Every migration of this build, in order (each table definition written once, as SQLite says it; PostgreSQL gets
    /// it translated by ``SQLDialect/ddl(_:)``).
    static let migrator = SQLMigrator([
        .init("v1-conversations-messages-turns-approvals-events", sqlite: v1),
        .init("v2-auto-reply", sqlite: v2),
        .init("v3-agent-facts-session-rules-turn-origin", sqlite: v3),
        .init("v4-notifications", sqlite: NotificationSchema.v4),
        .init("v5-live-activities", sqlite: LiveActivityStore.schema),
        // What a file edit will change (JSON array of `FileDiff`), for approvals of file tools.
        .init("v6-approval-diffs", sqlite: "ALTER TABLE approvals ADD COLUMN diffs TEXT;"),
        ClusterSchema.v7,
    ])

    /// What the agent CLI reports about itself (version, permission mode), the session rules a person granted (JSON
    /// array of `SessionRule`), the model API retry in progress (JSON of `APIRetry`), who started a turn, and the rule
    /// an approval offers with the CLI's own description of the call.
    private static let v3 = """
        ALTER TABLE conversations ADD COLUMN agent_version TEXT;
        ALTER TABLE conversations ADD COLUMN agent_permission_mode TEXT;
        ALTER TABLE conversations ADD COLUMN session_rules TEXT NOT NULL DEFAULT '[]';
        ALTER TABLE conversations ADD COLUMN retry TEXT;
        ALTER TABLE turns ADD COLUMN origin TEXT NOT NULL DEFAULT 'user';
        ALTER TABLE approvals ADD COLUMN session_rule TEXT;
        ALTER TABLE approvals ADD COLUMN description TEXT;
        ALTER TABLE approvals ADD COLUMN display_name TEXT;
        ALTER TABLE approvals ADD COLUMN blocked_path TEXT;
        """

    /// Auto-reply: each conversation's settings and loop (JSON of `AutoReplySettings` and `AutoReplyMachine`), and
    /// default settings per working directory (a project).
    private static let v2 = """
        CREATE TABLE auto_reply (
            conversation_id TEXT PRIMARY KEY NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            settings TEXT NOT NULL,
            loop TEXT,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE auto_reply_defaults (
            cwd TEXT PRIMARY KEY NOT NULL,
            settings TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        """

    private static let v1 = """
        CREATE TABLE conversations (
            position INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            title TEXT NOT NULL,
            title_is_custom INTEGER NOT NULL,
            cwd TEXT NOT NULL,
            backend TEXT NOT NULL,
            model TEXT,
            permission_mode TEXT,
            pinned INTEGER NOT NULL,
            archived INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            last_activity_at TEXT NOT NULL,
            session_id TEXT,
            status TEXT NOT NULL,
            process_running INTEGER NOT NULL,
            queued INTEGER NOT NULL,
            pending_approvals INTEGER NOT NULL,
            message_count INTEGER NOT NULL,
            total_cost_usd REAL NOT NULL,
            usage TEXT NOT NULL,
            last_message_preview TEXT
        );
        CREATE INDEX conversations_by_activity ON conversations(last_activity_at, position);

        CREATE TABLE messages (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            turn_id TEXT,
            role TEXT NOT NULL,
            text TEXT NOT NULL,
            tool_calls TEXT NOT NULL,
            created_at TEXT NOT NULL,
            cost_usd REAL,
            usage TEXT
        );
        CREATE INDEX messages_by_conversation ON messages(conversation_id, seq);

        CREATE TABLE turns (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            text TEXT NOT NULL,
            state TEXT NOT NULL,
            created_at TEXT NOT NULL,
            started_at TEXT,
            ended_at TEXT,
            session_id TEXT,
            cost_usd REAL,
            usage TEXT,
            duration_ms INTEGER,
            stop_reason TEXT,
            error TEXT
        );
        CREATE INDEX turns_by_conversation ON turns(conversation_id, seq);

        CREATE TABLE approvals (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            turn_id TEXT NOT NULL,
            tool_use_id TEXT,
            tool_name TEXT NOT NULL,
            input TEXT NOT NULL,
            suggestions TEXT NOT NULL,
            reason TEXT,
            state TEXT NOT NULL,
            decision TEXT,
            message TEXT,
            decided_by TEXT,
            created_at TEXT NOT NULL,
            decided_at TEXT
        );
        CREATE INDEX approvals_by_conversation ON approvals(conversation_id, seq);
        CREATE INDEX approvals_by_state ON approvals(state, seq);

        CREATE TABLE conversation_events (
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL CHECK (seq > 0),
            name TEXT NOT NULL,
            data BLOB NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (conversation_id, seq)
        ) WITHOUT ROWID;
        """
}
