import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// `ChatStore` pages: conversations and messages paged with cursors that visit every row once, and bad cursors refused.
@Suite struct ChatStorePageTests: ChatStoreSuite {
    let tmp = TemporaryDirectory("chat-store")

    // MARK: - Conversation pages

    @Test(arguments: StoreDatabase.allCases) func conversationPagesVisitEveryIdOnceEvenWhenTimesTie(_ database: StoreDatabase) async throws {
        let store = try await store(database)
        // 200 share one time; 50 have their own, before and after it. Inserted in a scrambled but fixed order: index
        // i * 97 mod 250 (97 and 250 share no factor, so every index comes once).
        let made = (0..<200).map { Self.conversation("tie-\($0)", activity: Self.t0) }
            + (0..<50).map { Self.conversation("own-\($0)", activity: Self.time($0 % 2 == 0 ? 100 + $0 : -100 - $0)) }
        let conversations = (0..<made.count).map { made[$0 * 97 % made.count] }
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

    @Test(arguments: StoreDatabase.allCases) func pinnedAndArchivedFilters(_ database: StoreDatabase) async throws {
        let store = try await store(database)
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

    @Test(arguments: StoreDatabase.allCases) func loadEarlierVisitsEveryMessageOnceInChronologicalPages(_ database: StoreDatabase) async throws {
        let store = try await store(database)
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

    @Test(arguments: StoreDatabase.allCases) func upsertKeepsAMessageInItsPlace(_ database: StoreDatabase) async throws {
        let store = try await store(database)
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

    @Test(arguments: StoreDatabase.allCases) func badCursorsAreRejected(_ database: StoreDatabase) async throws {
        let store = try await store(database)
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
}
