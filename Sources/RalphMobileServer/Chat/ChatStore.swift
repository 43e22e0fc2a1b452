import Foundation
import RalphAPI
import SQLStore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Conversations, messages, turns, approvals and conversation events, in the server's database: one SQLite file
/// (the default) or a PostgreSQL database several servers share, through ``SQLDatabase`` — the same statements on both.
///
/// Every write goes through ``commit(_:)``, one transaction per batch; transactions of one server run one at a time.
/// Neither database is touched on the Swift concurrency cooperative threads' time: SQLite work runs on GRDB's queues,
/// PostgreSQL's over the network. The schema and its migrations are in ``ChatSchema``; the page cursors in
/// ``ChatCursor``.
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

    /// Where the data is: the SQLite file's path, or the PostgreSQL URL without its password.
    public let path: String
    /// Run at the end of each commit, in its transaction, with the conversations it touched and their last event
    /// (in a cluster: the notice that tells the other servers, sent if and only if the step is stored).
    typealias CommitHook = @Sendable (any SQLConnection, [String: Int]) async throws -> Void
    private let commitHook = Mutex<CommitHook?>(nil)
    /// Internal so that the notification outbox and the Live Activities, which live in the same database, share its
    /// transactions.
    let database: any SQLDatabase

    /// Opens the SQLite database at `path`, creating it (mode 0600) if needed, and brings its schema up to date.
    ///
    /// The parent directory must exist. Blocking (file system and SQLite work): call it at startup, not from a task
    /// on the cooperative pool.
    ///
    /// - Throws: ``StoreError/cannotOpen(path:reason:)`` naming the file and the reason: a missing directory, a file
    ///   that is not a SQLite database, a database written by a newer server, permissions, …
    public init(path: String) throws {
        self.path = path
        try Self.prepareFile(path)
        do {
            let sqlite = try SQLiteDatabase(path: path)
            // In WAL mode NORMAL keeps every committed transaction through a crash of the server (only a power loss can
            // take the last ones back) and spares an fsync per commit — a commit per streamed chunk.
            try sqlite.pool.barrierWriteWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            if let unknown = try ChatSchema.migrator.unknownMigrations(sqlite: sqlite), !unknown.isEmpty {
                throw StoreError.cannotOpen(path: path, reason: "it was written by a newer version of the server (unknown migrations)")
            }
            try ChatSchema.migrator.migrate(sqlite: sqlite)
            database = sqlite
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.cannotOpen(path: path, reason: SQLiteDatabase.words(error))
        }
    }

    /// The store on an opened database (PostgreSQL), its schema brought up to date.
    public static func connect(_ database: any SQLDatabase, named name: String) async throws(StoreError) -> ChatStore {
        do {
            let unknown = try await ChatSchema.migrator.unknownMigrations(database)
            guard unknown.isEmpty else {
                throw StoreError.cannotOpen(path: name, reason: "it was written by a newer version of the server (unknown migrations \(unknown.joined(separator: ", ")))")
            }
            try await ChatSchema.migrator.migrate(database)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .cannotOpen(path: name, reason: "\(error)")
        }
        return ChatStore(database: database, path: name)
    }

    private init(database: any SQLDatabase, path: String) {
        self.database = database
        self.path = path
    }

    /// The names of the migrations applied, in this build's order (for tests and diagnostics).
    func appliedMigrations() async throws -> [String] {
        let applied = Set(try await database.query("SELECT identifier FROM grdb_migrations").map { try $0.string("identifier") })
        return ChatSchema.migrator.migrations.map(\.name).filter(applied.contains)
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
    ///   that does not exist; any database error. The transaction is rolled back in every case, so an error means
    ///   nothing was stored.
    @discardableResult
    public func commit(_ writes: [ChatWrite]) async throws -> [StoredChatEvent] {
        guard !writes.isEmpty else { return [] }
        let hook = commitHook.withLock { $0 }
        return try await database.write { db in
            let now = Timestamp.now()
            var stored: [StoredChatEvent] = []
            for write in writes {
                try await Self.apply(write, now: now, db, into: &stored)
            }
            if let hook {
                var touched: [String: Int] = [:]
                for write in writes { if let id = write.conversationID { touched[id] = touched[id] ?? 0 } }
                for event in stored { touched[event.conversationID] = max(touched[event.conversationID] ?? 0, event.seq) }
                try await hook(db, touched)
            }
            return stored
        }
    }

    /// Sets the hook run at the end of each commit (see ``CommitHook``).
    func onCommit(_ hook: @escaping CommitHook) {
        commitHook.withLock { $0 = hook }
    }

    private static func apply(_ write: ChatWrite, now: String, _ db: any SQLConnection, into stored: inout [StoredChatEvent]) async throws {
        switch write {
        case .conversation(let conversation):
            try await ChatRows.upsert(conversation, db)
        case .deleteConversation(let id):
            try await db.execute("DELETE FROM conversations WHERE id = ?", id)
        case .message(let message):
            try await foreignKey(message.conversationId) { try await ChatRows.upsert(message, db) }
        case .turn(let turn):
            try await foreignKey(turn.conversationId) { try await ChatRows.upsert(turn, db) }
        case .approval(let approval):
            try await foreignKey(approval.conversationId) { try await ChatRows.upsert(approval, db) }
        case .event(let conversationID, let name, let data):
            // Transactions of this server run one at a time, and only the server running a conversation writes its
            // events, so max + 1 cannot race (the primary key would refuse a second one).
            let last = try await db.first("SELECT MAX(seq) AS last FROM conversation_events WHERE conversation_id = ?", conversationID)
            let event = StoredChatEvent(
                conversationID: conversationID, seq: (try last?.optionalInt("last") ?? 0) + 1, name: name, data: data, createdAt: now)
            try await foreignKey(conversationID) {
                try await db.execute(
                    "INSERT INTO conversation_events (conversation_id, seq, name, data, created_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [event.conversationID, event.seq, event.name, event.data, event.createdAt])
            }
            stored.append(event)
        case .autoReply(let conversationID, let settings, let loop):
            try await foreignKey(conversationID) {
                try await db.execute(
                    """
                    INSERT INTO auto_reply (conversation_id, settings, loop, updated_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT(conversation_id) DO UPDATE SET settings = excluded.settings, loop = excluded.loop, updated_at = excluded.updated_at
                    """,
                    arguments: [conversationID, String(decoding: settings, as: UTF8.self), loop.map { String(decoding: $0, as: UTF8.self) }, now])
            }
        case .autoReplyDefaults(let cwd, let settings):
            try await db.execute(
                """
                INSERT INTO auto_reply_defaults (cwd, settings, updated_at) VALUES (?, ?, ?)
                ON CONFLICT(cwd) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at
                """,
                arguments: [cwd, String(decoding: settings, as: UTF8.self), now])
        case .notification(let event):
            try await NotificationSchema.record(event, now: Date().timeIntervalSince1970, db)
        }
    }

    // MARK: - Auto-reply

    /// A conversation's auto-reply row, or nil when it never had one.
    public func autoReply(conversationID: String) async throws -> StoredAutoReply? {
        guard let row = try await database.first("SELECT settings, loop FROM auto_reply WHERE conversation_id = ?", [conversationID]) else {
            return nil
        }
        return try Self.autoReply(row)
    }

    /// Every conversation with a stored loop (startup recovery).
    public func autoReplyLoops() async throws -> [(conversationID: String, stored: StoredAutoReply)] {
        try await database.query("SELECT conversation_id, settings, loop FROM auto_reply WHERE loop IS NOT NULL").map { row in
            (try row.string("conversation_id"), try Self.autoReply(row))
        }
    }

    private static func autoReply(_ row: SQLRow) throws -> StoredAutoReply {
        StoredAutoReply(settings: Array(try row.string("settings").utf8), loop: try row.optionalString("loop").map { Array($0.utf8) })
    }

    /// The default auto-reply settings of a working directory, if saved.
    public func autoReplyDefaults(cwd: String) async throws -> [UInt8]? {
        try await database.first("SELECT settings FROM auto_reply_defaults WHERE cwd = ?", [cwd]).map { Array(try $0.string("settings").utf8) }
    }

    /// Runs `body`, turning a foreign key failure into ``StoreError/unknownConversation(_:)``.
    private static func foreignKey(_ conversationID: String, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch SQLError.foreignKey {
            throw StoreError.unknownConversation(conversationID)
        }
    }

    // MARK: - Conversations

    /// The conversation with this id, or nil.
    public func conversation(id: String) async throws -> Conversation? {
        try await database.first("SELECT * FROM conversations WHERE id = ?", [id]).map(ChatRows.conversation)
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
        var arguments: [any SQLBindable] = []
        if let pinned {
            conditions.append("pinned = ?")
            arguments.append(pinned)
        }
        if !includeArchived {
            conditions.append("archived = 0")
        }
        if let after {
            conditions.append("(last_activity_at < ? OR (last_activity_at = ? AND position < ?))")
            arguments += [after.lastActivityAt, after.lastActivityAt, after.position]
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments.append(limit + 1)
        let rows = try await database.query("SELECT * FROM conversations \(filter) ORDER BY last_activity_at DESC, position DESC LIMIT ?", arguments)
            .map { row in (conversation: try ChatRows.conversation(row), position: try row.int("position")) }
        let page = rows.prefix(limit)
        let hasMore = rows.count > limit
        let next = hasMore ? page.last.map { ChatCursor.conversation(.init(lastActivityAt: $0.conversation.lastActivityAt, position: $0.position)) } : nil
        return Page(items: page.map(\.conversation), hasMore: hasMore, nextCursor: next)
    }

    /// Every conversation, in creation order (for recovery at startup).
    public func allConversations() async throws -> [Conversation] {
        try await database.query("SELECT * FROM conversations ORDER BY position").map(ChatRows.conversation)
    }

    // MARK: - Messages

    /// The message with this id, or nil.
    public func message(id: String) async throws -> ChatMessage? {
        try await database.first("SELECT * FROM messages WHERE id = ?", [id]).map(ChatRows.message)
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
        var sql = "SELECT * FROM messages WHERE conversation_id = ?"
        var arguments: [any SQLBindable] = [conversationID]
        if let beforeSeq {
            sql += " AND seq < ?"
            arguments.append(beforeSeq)
        }
        sql += " ORDER BY seq DESC LIMIT ?"
        arguments.append(limit + 1)
        let rows = try await database.query(sql, arguments).map { row in (message: try ChatRows.message(row), seq: try row.int("seq")) }
        let hasMore = rows.count > limit
        let page = rows.prefix(limit).reversed()
        let next = hasMore ? page.first.map { ChatCursor.message(seq: $0.seq) } : nil
        return Page(items: page.map(\.message), hasMore: hasMore, nextCursor: next)
    }

    /// How many messages the conversation has.
    public func messageCount(conversationID: String) async throws -> Int {
        try await database.first("SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ?", [conversationID])?.int("n") ?? 0
    }

    // MARK: - Turns

    /// The turn with this id, or nil.
    public func turn(id: String) async throws -> Turn? {
        try await database.first("SELECT * FROM turns WHERE id = ?", [id]).map(ChatRows.turn)
    }

    /// The conversation's turns in one of `states` (every turn when `states` is empty), in creation (queue) order.
    public func turns(conversationID: String, states: Set<TurnState>) async throws -> [Turn] {
        let wanted = states.map(\.rawValue).sorted()
        var sql = "SELECT * FROM turns WHERE conversation_id = ?"
        var arguments: [any SQLBindable] = [conversationID]
        if !wanted.isEmpty {
            sql += " AND state IN (\(Array(repeating: "?", count: wanted.count).joined(separator: ", ")))"
            arguments += wanted as [any SQLBindable]
        }
        sql += " ORDER BY seq"
        return try await database.query(sql, arguments).map(ChatRows.turn)
    }

    // MARK: - Approvals

    /// The approval with this id, or nil.
    public func approval(id: String) async throws -> Approval? {
        try await database.first("SELECT * FROM approvals WHERE id = ?", [id]).map(ChatRows.approval)
    }

    /// Approvals in `state` (any when nil) of one conversation (all when nil), oldest first.
    public func approvals(state: ApprovalState?, conversationID: String?) async throws -> [Approval] {
        var conditions: [String] = []
        var arguments: [any SQLBindable] = []
        if let state {
            conditions.append("state = ?")
            arguments.append(state.rawValue)
        }
        if let conversationID {
            conditions.append("conversation_id = ?")
            arguments.append(conversationID)
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try await database.query("SELECT * FROM approvals \(filter) ORDER BY seq", arguments).map(ChatRows.approval)
    }

    // MARK: - Events

    /// Up to `limit` events of the conversation with a sequence number greater than `after`, in ascending order.
    public func events(conversationID: String, after: Int, limit: Int) async throws -> [StoredChatEvent] {
        guard limit > 0 else { return [] }
        return try await database.query(
            "SELECT * FROM conversation_events WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?", [conversationID, after, limit]
        ).map(ChatRows.event)
    }

    /// The sequence number of the conversation's last event; 0 when it has none.
    public func lastEventSeq(conversationID: String) async throws -> Int {
        try await database.first("SELECT MAX(seq) AS last FROM conversation_events WHERE conversation_id = ?", [conversationID])?
            .optionalInt("last") ?? 0
    }
}
