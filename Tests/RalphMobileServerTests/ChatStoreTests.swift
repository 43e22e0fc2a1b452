import Foundation
import GRDB
import RalphAPI
import Testing

@testable import RalphMobileServer

#if canImport(Glibc)
import Glibc
#endif

/// `ChatStore` on real SQLite files in temporary directories.
@Suite struct ChatStoreTests {
    let tmp = TemporaryDirectory("chat-store")
    var path: String { tmp.path + "/chat.sqlite" }

    static let t0 = "2026-03-01T10:00:00.000Z"

    /// A timestamp `seconds` after 2026-03-01T10:00:00Z.
    static func time(_ seconds: Int) -> String {
        Timestamp.format(Timestamp.parse(t0)!.addingTimeInterval(Double(seconds)))
    }

    static func conversation(_ id: String, activity: String = t0, pinned: Bool = false, archived: Bool = false) -> Conversation {
        Conversation(
            id: id, title: "Title \(id)", cwd: "/work/\(id)", backend: "claude", pinned: pinned, archived: archived, createdAt: t0,
            updatedAt: t0, lastActivityAt: activity
        )
    }

    static func message(_ id: String, in conversation: String, text: String? = nil, at time: String = t0) -> ChatMessage {
        ChatMessage(id: id, conversationId: conversation, turnId: nil, role: .user, text: text ?? "text of \(id)", createdAt: time)
    }

    static func event(_ conversation: String, _ n: Int) -> ChatWrite {
        .event(conversationID: conversation, name: "chunk", data: Array(#"{"turn_id":"t","text":"\#(n)"}"#.utf8))
    }

    // MARK: - Round trips

    @Test func everyTypeRoundTripsWithJSONFieldsAndNils() async throws {
        let store = try ChatStore(path: path)
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

    @Test func autoReplyRowsRoundTripAndGoWithTheirConversation() async throws {
        let store = try ChatStore(path: path)
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

    // MARK: - Event sequence numbers

    @Test func eventSeqsAreGapFreeAndSurviveARestart() async throws {
        do {
            let store = try ChatStore(path: path)
            try await store.commit([.conversation(Self.conversation("a")), .conversation(Self.conversation("b"))])
            #expect(try await store.lastEventSeq(conversationID: "a") == 0)
            let first = try await store.commit([Self.event("a", 1), Self.event("b", 1), Self.event("a", 2), Self.event("a", 3)])
            #expect(first.map(\.seq) == [1, 1, 2, 3])
            #expect(first.map(\.conversationID) == ["a", "b", "a", "a"])
            // Other rows come and go without touching the numbering.
            try await store.commit([.message(Self.message("m", in: "a")), Self.event("a", 4)])
            try await store.commit([.deleteConversation("b")])
            #expect(try await store.lastEventSeq(conversationID: "a") == 4)
        }
        let reopened = try ChatStore(path: path)
        #expect(try await reopened.lastEventSeq(conversationID: "a") == 4)
        let next = try await reopened.commit([Self.event("a", 5), Self.event("a", 6)])
        #expect(next.map(\.seq) == [5, 6])
        let all = try await reopened.events(conversationID: "a", after: 0, limit: 100)
        #expect(all.map(\.seq) == Array(1...6))
        #expect(all.map { String(decoding: $0.data, as: UTF8.self) } == (1...6).map { #"{"turn_id":"t","text":"\#($0)"}"# })
        #expect(all.allSatisfy { $0.name == "chunk" && Timestamp.parse($0.createdAt) != nil })
        #expect(all.last == next.last)
        #expect(try await reopened.events(conversationID: "a", after: 2, limit: 2).map(\.seq) == [3, 4])
        #expect(try await reopened.events(conversationID: "a", after: 6, limit: 10).isEmpty)
        #expect(try await reopened.events(conversationID: "a", after: 0, limit: 0).isEmpty)
    }

    @Test func concurrentCommitsNeverShareASeq() async throws {
        let store = try ChatStore(path: path)
        try await store.commit([.conversation(Self.conversation("c"))])
        let tasks = 8
        let commitsPerTask = 25
        let batches = try await withThrowingTaskGroup(of: [[Int]].self) { group in
            for t in 0..<tasks {
                group.addTask {
                    var seqs: [[Int]] = []
                    for i in 0..<commitsPerTask {
                        let stored = try await store.commit([Self.event("c", t * 1000 + i), Self.event("c", t * 1000 + i)])
                        seqs.append(stored.map(\.seq))
                    }
                    return seqs
                }
            }
            var all: [[Int]] = []
            for try await seqs in group { all += seqs }
            return all
        }
        // Each batch got two consecutive numbers, and together they are exactly 1…N.
        #expect(batches.allSatisfy { $0.count == 2 && $0[1] == $0[0] + 1 })
        let total = tasks * commitsPerTask * 2
        #expect(batches.flatMap { $0 }.sorted() == Array(1...total))
        #expect(try await store.lastEventSeq(conversationID: "c") == total)
        #expect(try await store.events(conversationID: "c", after: 0, limit: total + 5).map(\.seq) == Array(1...total))
    }

    // MARK: - Transactions

    @Test func aFailingWriteLeavesNothingOfItsBatch() async throws {
        let store = try ChatStore(path: path)
        try await store.commit([.conversation(Self.conversation("c")), Self.event("c", 1)])
        let failure = await #expect(throws: ChatStore.StoreError.self) {
            try await store.commit([
                .message(Self.message("m1", in: "c")), Self.event("c", 2), .conversation(Self.conversation("d")),
                .message(Self.message("m2", in: "nope")), Self.event("c", 3),
            ])
        }
        #expect(failure == .unknownConversation("nope"))
        #expect(try await store.message(id: "m1") == nil)
        #expect(try await store.conversation(id: "d") == nil)
        #expect(try await store.lastEventSeq(conversationID: "c") == 1)

        let eventFailure = await #expect(throws: ChatStore.StoreError.self) {
            try await store.commit([Self.event("c", 2), Self.event("ghost", 1)])
        }
        #expect(eventFailure == .unknownConversation("ghost"))
        #expect(eventFailure?.description == "no conversation with id 'ghost'")
        // Deleted earlier in the same batch counts as unknown too.
        await #expect(throws: ChatStore.StoreError.unknownConversation("c")) {
            try await store.commit([.deleteConversation("c"), Self.event("c", 2)])
        }
        #expect(try await store.lastEventSeq(conversationID: "c") == 1)
        #expect(try await store.commit([Self.event("c", 2)]).map(\.seq) == [2])
    }

    // MARK: - Conversation pages

    @Test func conversationPagesVisitEveryIdOnceEvenWhenTimesTie() async throws {
        let store = try ChatStore(path: path)
        // 200 share one time; 50 have their own, before and after it. Inserted in a shuffled order.
        var conversations = (0..<200).map { Self.conversation("tie-\($0)", activity: Self.t0) }
        conversations += (0..<50).map { Self.conversation("own-\($0)", activity: Self.time($0 % 2 == 0 ? 100 + $0 : -100 - $0)) }
        var generator = SeededGenerator(seed: 42)
        conversations.shuffle(using: &generator)
        for chunk in stride(from: 0, to: conversations.count, by: 40) {
            try await store.commit(conversations[chunk..<min(chunk + 40, conversations.count)].map { .conversation($0) })
        }
        // Newest activity first; among equal times the later-created first.
        let expected = conversations.enumerated().sorted {
            ($0.element.lastActivityAt, $0.offset) > ($1.element.lastActivityAt, $1.offset)
        }.map(\.element.id)

        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let page = try await store.conversations(limit: 7, cursor: cursor, pinned: nil, includeArchived: false)
            pages += 1
            #expect(page.items.count == (page.hasMore ? 7 : 250 % 7))
            #expect((page.nextCursor != nil) == page.hasMore)
            seen += page.items.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil && pages < 100
        #expect(pages == 36)
        #expect(seen.count == 250)
        #expect(Set(seen).count == 250)
        #expect(seen == expected)
    }

    @Test func pinnedAndArchivedFilters() async throws {
        let store = try ChatStore(path: path)
        var writes: [ChatWrite] = []
        for i in 0..<20 {
            writes.append(.conversation(Self.conversation("c\(i)", activity: Self.time(i % 3), pinned: i % 4 == 0, archived: i % 5 == 0)))
        }
        try await store.commit(writes)
        func walk(pinned: Bool?, includeArchived: Bool) async throws -> [String] {
            var ids: [String] = []
            var cursor: String?
            repeat {
                let page = try await store.conversations(limit: 3, cursor: cursor, pinned: pinned, includeArchived: includeArchived)
                ids += page.items.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            return ids
        }
        func expected(_ keep: (Int) -> Bool) -> [String] {
            (0..<20).filter(keep).sorted { (Self.time($0 % 3), $0) > (Self.time($1 % 3), $1) }.map { "c\($0)" }
        }
        #expect(try await walk(pinned: nil, includeArchived: false) == expected { $0 % 5 != 0 })
        #expect(try await walk(pinned: true, includeArchived: false) == expected { $0 % 4 == 0 && $0 % 5 != 0 })
        #expect(try await walk(pinned: false, includeArchived: false) == expected { $0 % 4 != 0 && $0 % 5 != 0 })
        #expect(try await walk(pinned: nil, includeArchived: true) == expected { _ in true })
        #expect(try await walk(pinned: true, includeArchived: true) == expected { $0 % 4 == 0 })
        let single = try await store.conversations(limit: 200, cursor: nil, pinned: nil, includeArchived: true)
        #expect(single.items.count == 20 && !single.hasMore && single.nextCursor == nil)
    }

    // MARK: - Message pages

    @Test func loadEarlierVisitsEveryMessageOnceInChronologicalPages() async throws {
        let store = try ChatStore(path: path)
        try await store.commit([.conversation(Self.conversation("c")), .conversation(Self.conversation("other"))])
        let ids = (0..<500).map { "m\($0)" }
        for chunk in stride(from: 0, to: 500, by: 50) {
            // Interleave another conversation's messages: they must not show up.
            try await store.commit(
                ids[chunk..<chunk + 50].map { .message(Self.message($0, in: "c")) } + [.message(Self.message("x\(chunk)", in: "other"))]
            )
        }
        var collected: [String] = []
        var before: String?
        var pages = 0
        repeat {
            let page = try await store.messages(conversationID: "c", before: before, limit: 13)
            pages += 1
            let pageIDs = page.items.map(\.id)
            let indexes = pageIDs.compactMap { ids.firstIndex(of: $0) }
            #expect(indexes == indexes.sorted(), "page \(pages) is chronological")
            #expect(pageIDs.count == (page.hasMore ? 13 : 500 % 13))
            #expect((page.nextCursor != nil) == page.hasMore)
            collected = pageIDs + collected
            before = page.nextCursor
        } while before != nil && pages < 100
        #expect(pages == 39)
        #expect(collected == ids)

        let newest = try await store.messages(conversationID: "c", before: nil, limit: 13)
        #expect(newest.items.map(\.id) == Array(ids.suffix(13)))
        let everything = try await store.messages(conversationID: "c", before: nil, limit: 500)
        #expect(everything.items.count == 500 && !everything.hasMore && everything.nextCursor == nil)
        #expect(try await store.messages(conversationID: "nobody", before: nil, limit: 10) == Page(items: [], hasMore: false, nextCursor: nil))
        #expect(try await store.messageCount(conversationID: "c") == 500)
    }

    @Test func upsertKeepsAMessageInItsPlace() async throws {
        let store = try ChatStore(path: path)
        try await store.commit([
            .conversation(Self.conversation("c")), .message(Self.message("a", in: "c", at: Self.time(1))),
            .message(Self.message("b", in: "c", at: Self.time(2))), .message(Self.message("c", in: "c", at: Self.time(3))),
        ])
        var updated = Self.message("b", in: "c", text: "b, finished", at: Self.time(2))
        updated.role = .assistant
        updated.toolCalls = [ToolCall(toolUseId: "tu", name: "Bash", input: ["command": "make"], output: "ok", isError: false)]
        updated.costUsd = 0.01
        try await store.commit([.message(updated), .message(Self.message("d", in: "c", at: Self.time(4)))])
        let page = try await store.messages(conversationID: "c", before: nil, limit: 10)
        #expect(page.items.map(\.id) == ["a", "b", "c", "d"])
        #expect(page.items[1] == updated)
        #expect(try await store.messageCount(conversationID: "c") == 4)

        // Conversations too: an upsert keeps the tie-breaker (and the children).
        try await store.commit([.conversation(Self.conversation("c2"))])
        #expect(try await store.conversations(limit: 10, cursor: nil, pinned: nil, includeArchived: false).items.map(\.id) == ["c2", "c"])
        var renamed = Self.conversation("c")
        renamed.title = "Renamed"
        try await store.commit([.conversation(renamed)])
        #expect(try await store.conversations(limit: 10, cursor: nil, pinned: nil, includeArchived: false).items.map(\.id) == ["c2", "c"])
        #expect(try await store.conversation(id: "c")?.title == "Renamed")
        #expect(try await store.messageCount(conversationID: "c") == 4)
    }

    // MARK: - Cursors

    @Test func badCursorsAreRejected() async throws {
        let store = try ChatStore(path: path)
        try await store.commit((0..<3).map { .conversation(Self.conversation("c\($0)")) } + (0..<3).map { .message(Self.message("m\($0)", in: "c0")) })
        let conversationCursor = try #require(try await store.conversations(limit: 1, cursor: nil, pinned: nil, includeArchived: false).nextCursor)
        let messageCursor = try #require(try await store.messages(conversationID: "c0", before: nil, limit: 1).nextCursor)
        #expect(!conversationCursor.contains("="), "base64url without padding")

        let badForConversations = [
            "", "not a cursor!", "%%%", "AAAA", String(repeating: "A", count: 300), messageCursor,
            Data("c1:0:2026-01-01T00:00:00.000Z".utf8).base64EncodedString(), Data("c1:x:2026".utf8).base64EncodedString(),
            Data("c1:5:".utf8).base64EncodedString(), Data("c2:5:2026-01-01T00:00:00.000Z".utf8).base64EncodedString(),
        ]
        for cursor in badForConversations {
            await #expect(throws: APIError.invalidParameter("cursor is not valid"), "cursor '\(cursor.prefix(30))'") {
                try await store.conversations(limit: 5, cursor: cursor, pinned: nil, includeArchived: false)
            }
        }
        for cursor in ["", "m1", conversationCursor, Data("m1:-4".utf8).base64EncodedString(), Data("m1:4:5".utf8).base64EncodedString()] {
            await #expect(throws: APIError.invalidParameter("before is not a valid cursor"), "cursor '\(cursor.prefix(30))'") {
                try await store.messages(conversationID: "c0", before: cursor, limit: 5)
            }
        }
        // Padded forms of our own cursors are fine.
        let padded = conversationCursor + String(repeating: "=", count: (4 - conversationCursor.count % 4) % 4)
        #expect(try await store.conversations(limit: 5, cursor: padded, pinned: nil, includeArchived: false).items.count == 2)
    }

    // MARK: - Deletes

    @Test func deletingAConversationRemovesEverythingOfIt() async throws {
        let store = try ChatStore(path: path)
        func everything(_ c: String) -> [ChatWrite] {
            [
                .conversation(Self.conversation(c)), .turn(Turn(id: "t-\(c)", conversationId: c, text: "hi", state: .running, createdAt: Self.t0)),
                .message(Self.message("m-\(c)", in: c)),
                .approval(Approval(id: "a-\(c)", conversationId: c, turnId: "t-\(c)", toolUseId: "tu", toolName: "Bash", input: [:], createdAt: Self.t0)),
                Self.event(c, 1), Self.event(c, 2),
            ]
        }
        try await store.commit(everything("gone") + everything("kept"))
        try await store.commit([.deleteConversation("gone"), .deleteConversation("never-existed")])

        #expect(try await store.conversation(id: "gone") == nil)
        #expect(try await store.message(id: "m-gone") == nil)
        #expect(try await store.turn(id: "t-gone") == nil)
        #expect(try await store.approval(id: "a-gone") == nil)
        #expect(try await store.events(conversationID: "gone", after: 0, limit: 10).isEmpty)
        #expect(try await store.lastEventSeq(conversationID: "gone") == 0)
        #expect(try await store.messageCount(conversationID: "gone") == 0)
        #expect(try await store.turns(conversationID: "gone", states: []).isEmpty)
        #expect(try await store.approvals(state: nil, conversationID: nil).map(\.id) == ["a-kept"])

        #expect(try await store.conversation(id: "kept") != nil)
        #expect(try await store.message(id: "m-kept") != nil)
        #expect(try await store.turn(id: "t-kept") != nil)
        #expect(try await store.lastEventSeq(conversationID: "kept") == 2)
        #expect(try await store.allConversations().map(\.id) == ["kept"])
    }

    // MARK: - Opening

    @Test func migrationsRunOnceAndReopeningKeepsTheData() async throws {
        do {
            let store = try ChatStore(path: path)
            #expect(try await store.appliedMigrations() == ["v1-conversations-messages-turns-approvals-events", "v2-auto-reply", "v3-agent-facts-session-rules-turn-origin"])
            try await store.commit([.conversation(Self.conversation("c")), .message(Self.message("m", in: "c")), Self.event("c", 1)])
        }
        for _ in 0..<2 {
            let store = try ChatStore(path: path)
            #expect(try await store.appliedMigrations() == ["v1-conversations-messages-turns-approvals-events", "v2-auto-reply", "v3-agent-facts-session-rules-turn-origin"])
            #expect(try await store.conversation(id: "c") == Self.conversation("c"))
            #expect(try await store.message(id: "m") == Self.message("m", in: "c"))
            #expect(try await store.lastEventSeq(conversationID: "c") == 1)
        }
        // Two stores on one file (a pool each) see each other's writes.
        let a = try ChatStore(path: path)
        let b = try ChatStore(path: path)
        try await a.commit([Self.event("c", 2)])
        #expect(try await b.commit([Self.event("c", 3)]).map(\.seq) == [3])
    }

    @Test func aDatabaseOfTheEarlierSchemaIsUpgradedKeepingItsRows() async throws {
        do {
            let queue = try DatabaseQueue(path: path)
            try ChatSchema.migrator.migrate(queue, upTo: "v2-auto-reply")
            try await queue.write { db in
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

/// A deterministic random number generator (SplitMix64), so a failing shuffle can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
