import SQLStore

/// The tables a cluster of servers shares in PostgreSQL (the migration `v7-cluster`, applied on SQLite too, where a
/// server on its own leaves them empty).
///
/// - `hosts`: each server: its stable id, name, version, and the time of its last heartbeat (the database's clock, in
///   seconds since 1970, so hosts with skewed clocks agree on who is online).
/// - `cluster_sessions`: each host's runs as the session list shows them (`summary`, the `Session` JSON), with the
///   `end` frame of a finished run, the RObot question it waits on, its line count and the generation of its file (a
///   rewritten file starts again).
/// - `cluster_events`: the events of those runs, append-only: the event id and the SSE `data` JSON exactly as the
///   owning host streams them, so a stream from any server is the same, byte for byte, with the same ids.
/// - `cluster_commands`: requests for a run or conversation of another host, carried out by that host: the request,
///   the caller's role, and the response once it is done.
/// - `conversations.host_id`: the host a conversation's agent runs on.
/// - `cluster_keys`, `cluster_web_sessions`: the API keys (their SHA-256) and the dashboard's logins, shared by every
///   host, so one key works everywhere and a revocation applies everywhere within a second. A revoked key stays, marked
///   `revoked_at`, so a host's keys file cannot bring it back.
enum ClusterSchema {
    static let v7 = SQLMigrator.Migration(
        "v7-cluster",
        sqlite: """
            CREATE TABLE hosts (
                id TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                version TEXT NOT NULL,
                started_at REAL NOT NULL,
                heartbeat_at REAL NOT NULL,
                stopped INTEGER NOT NULL DEFAULT 0
            );
            CREATE TABLE cluster_sessions (
                id TEXT PRIMARY KEY NOT NULL,
                host_id TEXT NOT NULL,
                summary TEXT NOT NULL,
                end_frame TEXT,
                question TEXT,
                line_count INTEGER NOT NULL,
                generation INTEGER NOT NULL,
                start_time REAL NOT NULL,
                removed INTEGER NOT NULL DEFAULT 0,
                updated_at REAL NOT NULL
            );
            CREATE INDEX cluster_sessions_host ON cluster_sessions (host_id);
            CREATE TABLE cluster_events (
                session_id TEXT NOT NULL,
                line INTEGER NOT NULL,
                event_id TEXT NOT NULL,
                data BLOB NOT NULL,
                PRIMARY KEY (session_id, line)
            );
            CREATE TABLE cluster_commands (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                host_id TEXT NOT NULL,
                method TEXT NOT NULL,
                uri TEXT NOT NULL,
                headers TEXT NOT NULL,
                body BLOB NOT NULL,
                role TEXT NOT NULL,
                key_id TEXT,
                created_at REAL NOT NULL,
                claimed_at REAL,
                status INTEGER,
                response BLOB,
                response_headers TEXT,
                done_at REAL
            );
            CREATE INDEX cluster_commands_waiting ON cluster_commands (host_id, claimed_at);
            ALTER TABLE conversations ADD COLUMN host_id TEXT;
            CREATE TABLE cluster_keys (
                id TEXT PRIMARY KEY NOT NULL,
                name TEXT,
                role TEXT NOT NULL,
                sha256 TEXT NOT NULL UNIQUE,
                created_at TEXT NOT NULL,
                revoked_at TEXT
            );
            CREATE TABLE cluster_web_sessions (
                digest TEXT PRIMARY KEY NOT NULL,
                key_id TEXT NOT NULL,
                key_fingerprint TEXT,
                created_at REAL NOT NULL,
                expires_at REAL NOT NULL
            );
            """)
}
