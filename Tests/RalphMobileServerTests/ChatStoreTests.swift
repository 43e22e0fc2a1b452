import Foundation
import GRDB
import SQLStore
import RalphAPI
import Testing

@testable import RalphMobileServer

#if canImport(Glibc)
import Glibc
#endif

/// `ChatStore` on real SQLite files in temporary directories: every row type round trips, and the file opens, migrates
/// and fails clearly.
@Suite struct ChatStoreTests: ChatStoreSuite {
    let tmp = TemporaryDirectory("chat-store")

    // MARK: - Round trips

    @Test(arguments: StoreDatabase.allCases) func everyTypeRoundTripsWithJSONFieldsAndNils(_ database: StoreDatabase) async throws {
        let store = try await store(database)
        let full = Conversation(
            id: "c-full", title: "Fix the build", titleIsCustom: true, cwd: "/work/proj", backend: "claude", model: "opus",
            permissionMode: "acceptEdits", pinned: true, archived: false, createdAt: Self.time(0), updatedAt: Self.time(5),
            lastActivityAt: Self.time(9), sessionId: "sess-1", status: .awaitingApproval, processRunning: true, queued: 2,
            pendingApprovals: 1, messageCount: 3, totalCostUsd: 0.123456789,
            usage: TokenUsage(inputTokens: 10, outputTokens: 20, cacheCreationInputTokens: 30, cacheReadInputTokens: 40),
            lastMessagePreview: "Done — «ok» ✓", agentVersion: "2.1.330", agentPermissionMode: "plan",
            sessionRules: [
                SessionRule(
                    id: "r-1", rule: PermissionRule(toolName: "Bash", field: "command", value: "touch a.txt", display: "Bash(touch a.txt)"),
                    approvalId: "a-1", grantedBy: "k_12345678", grantedAt: Self.time(2), uses: 3, lastUsedAt: Self.time(4)
                ),
                SessionRule(
                    id: "r-2", rule: PermissionRule(toolName: "mcp__db__q", field: nil, value: ["a": [1, 2.5], "b": nil], display: "mcp__db__q (this exact input)"),
                    approvalId: "a-3", grantedBy: "local", grantedAt: Self.time(3)
                ),
            ],
            retry: APIRetry(attempt: 2, maxRetries: 10, error: "overloaded", errorStatus: 529, retryDelayMs: 1206, at: Self.time(5))
        )
        let bare = Conversation(id: "c-bare", title: "", cwd: "/w", backend: "codex", createdAt: Self.t0, updatedAt: Self.t0, lastActivityAt: Self.t0)
        // Keys deliberately out of alphabetical order: they must come back in written order.
        let input: JSONValue = ["zeta": 1, "command": "ls -la", "nested": ["b": [1, 2.5, nil, true], "a": "x"]]
        let withTools = ChatMessage(
            id: "m-tools", conversationId: "c-full", turnId: "t-1", role: .assistant, text: "Running it.\nLine two",
            toolCalls: [
                ToolCall(toolUseId: "tu-1", name: "Bash", input: input, output: "total 0", isError: false, approvalId: "a-1"),
                ToolCall(toolUseId: "tu-2", name: "Read", input: ["path": "/x"]),
                ToolCall(toolUseId: "tu-3", name: "Odd", input: .null, output: "", isError: true),
            ],
            createdAt: Self.time(1), costUsd: 0.5, usage: TokenUsage(inputTokens: 1, outputTokens: 2)
        )
        let plain = ChatMessage(id: "m-plain", conversationId: "c-bare", turnId: nil, role: .system, text: "", createdAt: Self.t0)
        let fullTurn = Turn(
            id: "t-1", conversationId: "c-full", text: "do it", state: .complete, createdAt: Self.time(0), startedAt: Self.time(1),
            endedAt: Self.time(2), sessionId: "sess-1", costUsd: 0.25, usage: TokenUsage(inputTokens: 7), durationMs: 1234,
            stopReason: "end_turn", error: "none really", origin: .agent
        )
        let bareTurn = Turn(id: "t-2", conversationId: "c-full", text: "next", state: .queued, createdAt: Self.time(3))
        let decided = Approval(
            id: "a-1", conversationId: "c-full", turnId: "t-1", toolUseId: "tu-1", toolName: "Bash", input: input,
            suggestions: [["type": "addRules", "rules": [["toolName": "Bash"]], "behavior": "allow"]],
            sessionRule: PermissionRule(toolName: "Bash", field: "command", value: "ls -la", display: "Bash(ls -la)"), description: "List files",
            displayName: "Bash", blockedPath: "/work/proj/x", reason: "writes files",
            state: .allowed, decision: .allowSession, message: "go", decidedBy: "k_12345678", createdAt: Self.time(1),
            decidedAt: Self.time(2)
        )
        let pending = Approval(id: "a-2", conversationId: "c-bare", turnId: "t-9", toolUseId: nil, toolName: "Write", input: [:], createdAt: Self.t0)

        let events = try await store.commit([
            .conversation(full), .conversation(bare), .message(withTools), .message(plain), .turn(fullTurn), .turn(bareTurn),
            .approval(decided), .approval(pending),
        ])
        #expect(events.isEmpty)

        #expect(try await store.conversation(id: "c-full") == full)
        #expect(try await store.conversation(id: "c-bare") == bare)
        #expect(try await store.conversation(id: "missing") == nil)
        let storedTools = try #require(try await store.message(id: "m-tools"))
        #expect(storedTools == withTools)
        #expect(storedTools.toolCalls[0].input.objectValue?.keys == ["zeta", "command", "nested"])
        #expect(try await store.message(id: "m-plain") == plain)
        #expect(try await store.turn(id: "t-1") == fullTurn)
        #expect(try await store.turn(id: "t-2") == bareTurn)
        #expect(try await store.approval(id: "a-1") == decided)
        #expect(try await store.approval(id: "a-2") == pending)
        #expect(try await store.messageCount(conversationID: "c-full") == 1)

        #expect(try await store.turns(conversationID: "c-full", states: []) == [fullTurn, bareTurn])
        #expect(try await store.turns(conversationID: "c-full", states: [.queued, .running]) == [bareTurn])
        #expect(try await store.approvals(state: .pending, conversationID: nil) == [pending])
        #expect(try await store.approvals(state: nil, conversationID: nil) == [decided, pending])
        #expect(try await store.approvals(state: nil, conversationID: "c-full") == [decided])
        #expect(try await store.approvals(state: .pending, conversationID: "c-full") == [])
        #expect(try await store.allConversations() == [full, bare])
    }

    @Test func databaseFileIsPrivate() async throws {
        let store = try ChatStore(path: path)
        try await store.commit([.conversation(Self.conversation("c"))])
        for file in [path, path + "-wal"] {
            var status = stat()
            #expect(stat(file, &status) == 0, "\(file) exists")
            #expect(status.st_mode & 0o777 == 0o600, "\(file) has mode \(String(status.st_mode & 0o777, radix: 8))")
        }
    }

    @Test(arguments: StoreDatabase.allCases) func autoReplyRowsRoundTripAndGoWithTheirConversation(_ database: StoreDatabase) async throws {
        let store = try await store(database)
        try await store.commit([.conversation(Self.conversation("c")), .conversation(Self.conversation("d"))])
        #expect(try await store.autoReply(conversationID: "c") == nil)
        try await store.commit([.autoReply(conversationID: "c", settings: Array(#"{"mode":"hybrid"}"#.utf8), loop: nil)])
        #expect(try await store.autoReplyLoops().isEmpty, "a loop that never ran is not recovered")
        try await store.commit([.autoReply(conversationID: "c", settings: Array(#"{"mode":"hybrid"}"#.utf8), loop: Array(#"{"state":"running"}"#.utf8))])
        let stored = try #require(try await store.autoReply(conversationID: "c"))
        #expect(String(decoding: stored.loop ?? [], as: UTF8.self) == #"{"state":"running"}"#)
        #expect(try await store.autoReplyLoops().map(\.conversationID) == ["c"])
        try await store.commit([.autoReplyDefaults(cwd: "/w", settings: Array(#"{"mode":"quick"}"#.utf8))])
        #expect(try await store.autoReplyDefaults(cwd: "/w").map { String(decoding: $0, as: UTF8.self) } == #"{"mode":"quick"}"#)
        await #expect(throws: ChatStore.StoreError.unknownConversation("x")) {
            try await store.commit([.autoReply(conversationID: "x", settings: [], loop: nil)])
        }
        try await store.commit([.deleteConversation("c")])
        #expect(try await store.autoReply(conversationID: "c") == nil)
    }
    // MARK: - Opening

    static let migrations = ["v1-conversations-messages-turns-approvals-events", "v2-auto-reply", "v3-agent-facts-session-rules-turn-origin", "v4-notifications", "v5-live-activities", "v6-approval-diffs", "v7-cluster"]

    @Test(arguments: StoreDatabase.allCases) func migrationsRunOnceAndReopeningKeepsTheData(_ database: StoreDatabase) async throws {
        do {
            let store = try await store(database)
            #expect(try await store.appliedMigrations() == Self.migrations)
            try await store.commit([.conversation(Self.conversation("c")), .message(Self.message("m", in: "c")), Self.event("c", 1)])
        }
        for _ in 0..<2 {
            let store = try await store(database)
            #expect(try await store.appliedMigrations() == Self.migrations)
            #expect(try await store.conversation(id: "c") == Self.conversation("c"))
            #expect(try await store.message(id: "m") == Self.message("m", in: "c"))
            #expect(try await store.lastEventSeq(conversationID: "c") == 1)
        }
        // Two stores on one file (a pool each) see each other's writes.
        let a = try await store(database)
        let b = try await store(database)
        try await a.commit([Self.event("c", 2)])
        #expect(try await b.commit([Self.event("c", 3)]).map(\.seq) == [3])
    }

    @Test func aDatabaseOfTheEarlierSchemaIsUpgradedKeepingItsRows() async throws {
        do {
            let sqlite = try SQLiteDatabase(path: path)
            try ChatSchema.migrator.migrate(sqlite: sqlite, upTo: "v2-auto-reply")
            try await sqlite.pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO conversations (id, title, title_is_custom, cwd, backend, pinned, archived, created_at, updated_at,
                            last_activity_at, status, process_running, queued, pending_approvals, message_count, total_cost_usd, usage)
                        VALUES ('old', 'Old one', 0, '/w', 'claude', 0, 0, ?, ?, ?, 'idle', 0, 0, 0, 1, 0.5,
                            '{"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"input_tokens":5,"output_tokens":2}');
                        INSERT INTO turns (id, conversation_id, text, state, created_at) VALUES ('t-old', 'old', 'hi', 'complete', ?);
                        INSERT INTO approvals (id, conversation_id, turn_id, tool_name, input, suggestions, state, created_at)
                            VALUES ('a-old', 'old', 't-old', 'Bash', '{"command":"ls"}', '[]', 'allowed', ?);
                        """,
                    arguments: [Self.t0, Self.t0, Self.t0, Self.t0, Self.t0]
                )
            }
        }
        let store = try ChatStore(path: path)
        let old = try #require(try await store.conversation(id: "old"))
        #expect(old.title == "Old one" && old.totalCostUsd == 0.5)
        #expect(old.sessionRules.isEmpty && old.retry == nil && old.agentVersion == nil)
        #expect(try await store.turn(id: "t-old")?.origin == .user)
        let approval = try #require(try await store.approval(id: "a-old"))
        #expect(approval.sessionRule == nil && approval.description == nil)
    }

    @Test func aFileThatIsNotADatabaseIsAClearError() throws {
        let garbage = String(repeating: "this is not a SQLite database, just text\n", count: 100)
        try garbage.write(toFile: path, atomically: false, encoding: .utf8)
        let error = #expect(throws: ChatStore.StoreError.self) { try ChatStore(path: path) }
        let description = try #require(error?.description)
        #expect(description.contains(path), "\(description)")
        #expect(description.contains("not a database"), "\(description)")
        // The file is left as it was for a person to look at.
        #expect(try String(contentsOfFile: path, encoding: .utf8) == garbage)
    }

    @Test func aMissingDirectoryIsAClearError() throws {
        let missing = tmp.path + "/no/such/dir/chat.sqlite"
        let error = #expect(throws: ChatStore.StoreError.self) { try ChatStore(path: missing) }
        #expect(error == .cannotOpen(path: missing, reason: "the directory \(tmp.path)/no/such/dir does not exist"))
        let directory = tmp.subdirectory("a-directory")
        let notAFile = #expect(throws: ChatStore.StoreError.self) { try ChatStore(path: directory) }
        #expect(notAFile?.description.contains(directory) == true)
    }
}
