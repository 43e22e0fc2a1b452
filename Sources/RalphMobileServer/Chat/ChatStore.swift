import Foundation
import GRDB
import RalphAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Conversations, messages, turns, approvals and conversation events, persisted in one SQLite file through GRDB.
///
/// The file is a WAL database (mode 0600) opened with a `DatabasePool`: reads run concurrently with the one writer,
/// and every write goes through ``commit(_:)``, one transaction per batch. All async methods run their SQL on GRDB's
/// own dispatch queues, never on the Swift concurrency cooperative threads. The schema and its migrations are in
/// ``ChatSchema``; the page cursors in ``ChatCursor``.
public final class ChatStore: Sendable {
    /// Why the store could not open its file or read a row.
    public enum StoreError: Error, CustomStringConvertible, Equatable {
        /// The database file could not be created, opened or migrated.
        case cannotOpen(path: String, reason: String)
        /// A write named a conversation that does not exist (or was deleted earlier in the same batch).
        case unknownConversation(String)
        /// A stored row holds a value the wire types cannot represent.
        case corruptRow(table: String, id: String, reason: String)

        public var description: String {
            switch self {
            case .cannotOpen(let path, let reason): "cannot open the chat database \(path): \(reason)"
            case .unknownConversation(let id): "no conversation with id '\(id)'"
            case .corruptRow(let table, let id, let reason): "corrupt row '\(id)' in the chat database's \(table) table: \(reason)"
            }
        }
    }

    /// The database file.
    public let path: String
    /// Internal so that the notification outbox, which lives in the same file, shares the one writer.
    let pool: DatabasePool

    /// Opens the database at `path`, creating it (mode 0600) if needed, and brings its schema up to date.
    ///
    /// The parent directory must exist. Blocking (file system and SQLite work): call it at startup, not from a task
    /// on the cooperative pool.
    ///
    /// - Throws: ``StoreError/cannotOpen(path:reason:)`` naming the file and the reason: a missing directory, a file
    ///   that is not a SQLite database, a database written by a newer server, permissions, …
    public init(path: String) throws {
        self.path = path
        try Self.prepareFile(path)
        var configuration = Configuration()
        configuration.label = "ChatStore"
        configuration.foreignKeysEnabled = true
        // Another process (a second server by mistake, a `sqlite3` shell) may hold the write lock for a moment.
        configuration.busyMode = .timeout(5)
        // In WAL mode NORMAL keeps every committed transaction through a crash of the server (only a power loss can
        // take the last ones back) and spares an fsync per commit — a commit per streamed chunk.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            let migrator = ChatSchema.migrator
            let superseded = try pool.read { db in try migrator.hasBeenSuperseded(db) }
            if superseded {
                throw StoreError.cannotOpen(path: path, reason: "it was written by a newer version of the server (unknown migrations)")
            }
            try migrator.migrate(pool)
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw StoreError.cannotOpen(path: path, reason: error.message ?? error.description)
        } catch {
            throw StoreError.cannotOpen(path: path, reason: String(describing: error))
        }
    }

    /// The identifiers recorded in the file's `grdb_migrations` table, in the order they ran (for tests and
    /// diagnostics).
    func appliedMigrations() async throws -> [String] {
        try await pool.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") }
    }

    /// Creates the file with mode 0600 before SQLite does (SQLite would use 0644), or tightens an existing one.
    /// SQLite gives its `-wal` and `-shm` files the main file's mode.
    private static func prepareFile(_ path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if !directory.isEmpty, !(FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) && isDirectory.boolValue) {
            throw StoreError.cannotOpen(path: path, reason: "the directory \(directory) does not exist")
        }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw StoreError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        if status.st_mode & 0o077 != 0, fchmod(fd, 0o600) != 0 {
            throw StoreError.cannotOpen(path: path, reason: "cannot make it private (chmod 600): \(String(cString: strerror(errno)))")
        }
    }

    // MARK: - Writing

    /// Applies `writes` in order in one transaction: either all of them are stored or none is.
    ///
    /// - Returns: the events of the batch as stored, with their sequence numbers, in order.
    /// - Throws: ``StoreError/unknownConversation(_:)`` when a message, turn, approval or event names a conversation
    ///   that does not exist; any SQLite error; `CancellationError` when the calling task is cancelled (GRDB then
    ///   interrupts the statement). The transaction is rolled back in every case, so an error means nothing was stored.
    @discardableResult
    public func commit(_ writes: [ChatWrite]) async throws -> [StoredChatEvent] {
        guard !writes.isEmpty else { return [] }
        return try await pool.write { db in
            let now = Timestamp.now()
            var stored: [StoredChatEvent] = []
            for write in writes {
                try Self.apply(write, now: now, db, into: &stored)
            }
            return stored
        }
    }

    private static func apply(_ write: ChatWrite, now: String, _ db: Database, into stored: inout [StoredChatEvent]) throws {
        switch write {
        case .conversation(let conversation):
            try ChatRows.upsert(conversation, db)
        case .deleteConversation(let id):
            try db.execute(sql: "DELETE FROM conversations WHERE id = ?", arguments: [id])
        case .message(let message):
            try foreignKey(message.conversationId) { try ChatRows.upsert(message, db) }
        case .turn(let turn):
            try foreignKey(turn.conversationId) { try ChatRows.upsert(turn, db) }
        case .approval(let approval):
            try foreignKey(approval.conversationId) { try ChatRows.upsert(approval, db) }
        case .event(let conversationID, let name, let data):
            // The writer is serialized by GRDB and this runs inside its transaction, so max + 1 cannot race.
            let last = try Int.fetchOne(
                db, sql: "SELECT MAX(seq) FROM conversation_events WHERE conversation_id = ?", arguments: [conversationID]
            )
            let event = StoredChatEvent(conversationID: conversationID, seq: (last ?? 0) + 1, name: name, data: data, createdAt: now)
            try foreignKey(conversationID) {
                try db.execute(
                    sql: "INSERT INTO conversation_events (conversation_id, seq, name, data, created_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [event.conversationID, event.seq, event.name, Data(event.data), event.createdAt]
                )
            }
            stored.append(event)
        case .autoReply(let conversationID, let settings, let loop):
            try foreignKey(conversationID) {
                try db.execute(
                    sql: """
                        INSERT INTO auto_reply (conversation_id, settings, loop, updated_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT(conversation_id) DO UPDATE SET settings = excluded.settings, loop = excluded.loop, updated_at = excluded.updated_at
                        """,
                    arguments: [conversationID, String(decoding: settings, as: UTF8.self), loop.map { String(decoding: $0, as: UTF8.self) }, now]
                )
            }
        case .autoReplyDefaults(let cwd, let settings):
            try db.execute(
                sql: """
                    INSERT INTO auto_reply_defaults (cwd, settings, updated_at) VALUES (?, ?, ?)
                    ON CONFLICT(cwd) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at
                    """,
                arguments: [cwd, String(decoding: settings, as: UTF8.self), now]
            )
        case .notification(let event):
            try NotificationSchema.record(event, now: Date().timeIntervalSince1970, db)
        }
    }

    // MARK: - Auto-reply

    /// A conversation's auto-reply row, or nil when it never had one.
    public func autoReply(conversationID: String) async throws -> StoredAutoReply? {
        try await pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT settings, loop FROM auto_reply WHERE conversation_id = ?", arguments: [conversationID])
            else { return nil }
            let settings: String = try row.decode(forColumn: "settings")
            let loop: String? = try row.decode(forColumn: "loop")
            return StoredAutoReply(settings: Array(settings.utf8), loop: loop.map { Array($0.utf8) })
        }
    }

    /// Every conversation with a stored loop (startup recovery).
    public func autoReplyLoops() async throws -> [(conversationID: String, stored: StoredAutoReply)] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT conversation_id, settings, loop FROM auto_reply WHERE loop IS NOT NULL").map { row in
                let id: String = try row.decode(forColumn: "conversation_id")
                let settings: String = try row.decode(forColumn: "settings")
                let loop: String? = try row.decode(forColumn: "loop")
                return (id, StoredAutoReply(settings: Array(settings.utf8), loop: loop.map { Array($0.utf8) }))
            }
        }
    }

    /// The default auto-reply settings of a working directory, if saved.
    public func autoReplyDefaults(cwd: String) async throws -> [UInt8]? {
        try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT settings FROM auto_reply_defaults WHERE cwd = ?", arguments: [cwd]).map { Array($0.utf8) }
        }
    }

    /// Runs `body`, turning a foreign key failure into ``StoreError/unknownConversation(_:)``.
    private static func foreignKey(_ conversationID: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
            throw StoreError.unknownConversation(conversationID)
        }
    }

    // MARK: - Conversations

    /// The conversation with this id, or nil.
    public func conversation(id: String) async throws -> Conversation? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM conversations WHERE id = ?", arguments: [id]).map(ChatRows.conversation)
        }
    }

    /// A page of the conversation list, newest activity first (`last_activity_at DESC`, then the most recently
    /// created first among equal times).
    ///
    /// - Parameters:
    ///   - limit: page size (the route clamps it to 1…200; below 1 counts as 1).
    ///   - cursor: the `next_cursor` of the previous page, or nil for the first page.
    ///   - pinned: `true` only pinned, `false` only unpinned, nil both.
    ///   - includeArchived: whether archived conversations are listed.
    /// - Returns: the page; `next_cursor` is set when `has_more` is, and names the page's last item, so the next page
    ///   starts strictly after it even when many conversations share its timestamp.
    /// - Throws: `APIError.invalidParameter("cursor is not valid")` for a cursor this store did not write.
    public func conversations(limit: Int, cursor: String?, pinned: Bool?, includeArchived: Bool) async throws -> Page<Conversation> {
        let limit = max(1, limit)
        let after = try cursor.map { cursor throws(APIError) in try ChatCursor.conversationKey(cursor) }
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let pinned {
            conditions.append("pinned = ?")
            arguments += [pinned]
        }
        if !includeArchived {
            conditions.append("archived = 0")
        }
        if let after {
            conditions.append("(last_activity_at, position) < (?, ?)")
            arguments += [after.lastActivityAt, after.position]
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = "SELECT * FROM conversations \(filter) ORDER BY last_activity_at DESC, position DESC LIMIT ?"
        arguments += [limit + 1]
        let rows = try await pool.read { [arguments] db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                (conversation: try ChatRows.conversation(row), position: try row.decode(Int.self, forColumn: "position"))
            }
        }
        let page = rows.prefix(limit)
        let hasMore = rows.count > limit
        let next = hasMore ? page.last.map { ChatCursor.conversation(.init(lastActivityAt: $0.conversation.lastActivityAt, position: $0.position)) } : nil
        return Page(items: page.map(\.conversation), hasMore: hasMore, nextCursor: next)
    }

    /// Every conversation, in creation order (for recovery at startup).
    public func allConversations() async throws -> [Conversation] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM conversations ORDER BY position").map(ChatRows.conversation)
        }
    }

    // MARK: - Messages

    /// The message with this id, or nil.
    public func message(id: String) async throws -> ChatMessage? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM messages WHERE id = ?", arguments: [id]).map(ChatRows.message)
        }
    }

    /// The `limit` messages just before `before` (the newest ones when it is nil), in chronological order.
    ///
    /// Messages are ordered by the sequence number they got when first stored, so messages sharing a `created_at` keep
    /// a stable order and are never skipped or repeated by "Load earlier messages". An unknown conversation has an
    /// empty page.
    ///
    /// - Returns: the page, oldest first; `has_more` when older messages exist, and then `next_cursor` names the
    ///   page's oldest message (pass it back as `before`).
    /// - Throws: `APIError.invalidParameter("before is not a valid cursor")` for a cursor this store did not write.
    public func messages(conversationID: String, before: String?, limit: Int) async throws -> Page<ChatMessage> {
        let limit = max(1, limit)
        let beforeSeq = try before.map { cursor throws(APIError) in try ChatCursor.messageSeq(cursor) }
        let rows = try await pool.read { db in
            var sql = "SELECT * FROM messages WHERE conversation_id = ?"
            var arguments: StatementArguments = [conversationID]
            if let beforeSeq {
                sql += " AND seq < ?"
                arguments += [beforeSeq]
            }
            sql += " ORDER BY seq DESC LIMIT ?"
            arguments += [limit + 1]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                (message: try ChatRows.message(row), seq: try row.decode(Int.self, forColumn: "seq"))
            }
        }
        let hasMore = rows.count > limit
        let page = rows.prefix(limit).reversed()
        let next = hasMore ? page.first.map { ChatCursor.message(seq: $0.seq) } : nil
        return Page(items: page.map(\.message), hasMore: hasMore, nextCursor: next)
    }

    /// How many messages the conversation has.
    public func messageCount(conversationID: String) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages WHERE conversation_id = ?", arguments: [conversationID]) ?? 0
        }
    }

    // MARK: - Turns

    /// The turn with this id, or nil.
    public func turn(id: String) async throws -> Turn? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM turns WHERE id = ?", arguments: [id]).map(ChatRows.turn)
        }
    }

    /// The conversation's turns in one of `states` (every turn when `states` is empty), in creation (queue) order.
    public func turns(conversationID: String, states: Set<TurnState>) async throws -> [Turn] {
        let wanted = states.map(\.rawValue).sorted()
        return try await pool.read { db in
            var sql = "SELECT * FROM turns WHERE conversation_id = ?"
            var arguments: StatementArguments = [conversationID]
            if !wanted.isEmpty {
                sql += " AND state IN (\(Array(repeating: "?", count: wanted.count).joined(separator: ", ")))"
                arguments += StatementArguments(wanted)
            }
            sql += " ORDER BY seq"
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(ChatRows.turn)
        }
    }

    // MARK: - Approvals

    /// The approval with this id, or nil.
    public func approval(id: String) async throws -> Approval? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM approvals WHERE id = ?", arguments: [id]).map(ChatRows.approval)
        }
    }

    /// Approvals in `state` (any when nil) of one conversation (all when nil), oldest first.
    public func approvals(state: ApprovalState?, conversationID: String?) async throws -> [Approval] {
        try await pool.read { db in
            var conditions: [String] = []
            var arguments: StatementArguments = []
            if let state {
                conditions.append("state = ?")
                arguments += [state.rawValue]
            }
            if let conversationID {
                conditions.append("conversation_id = ?")
                arguments += [conversationID]
            }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            return try Row.fetchAll(db, sql: "SELECT * FROM approvals \(filter) ORDER BY seq", arguments: arguments).map(ChatRows.approval)
        }
    }

    // MARK: - Events

    /// Up to `limit` events of the conversation with a sequence number greater than `after`, in ascending order.
    public func events(conversationID: String, after: Int, limit: Int) async throws -> [StoredChatEvent] {
        guard limit > 0 else { return [] }
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM conversation_events WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                arguments: [conversationID, after, limit]
            ).map(ChatRows.event)
        }
    }

    /// The sequence number of the conversation's last event; 0 when it has none.
    public func lastEventSeq(conversationID: String) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT MAX(seq) FROM conversation_events WHERE conversation_id = ?", arguments: [conversationID]) ?? 0
        }
    }
}
