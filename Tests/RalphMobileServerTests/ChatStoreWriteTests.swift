import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// `ChatStore` writes: gap-free event sequence numbers, all-or-nothing batches, and deletes that leave nothing behind.
@Suite struct ChatStoreWriteTests: ChatStoreSuite {
    let tmp = TemporaryDirectory("chat-store")

    // MARK: - Event sequence numbers

    @Test(arguments: StoreDatabase.allCases) func eventSeqsAreGapFreeAndSurviveARestart(_ database: StoreDatabase) async throws {
        do {
            let store = try await store(database)
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
        let reopened = try await store(database)
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

    @Test(arguments: StoreDatabase.allCases) func concurrentCommitsNeverShareASeq(_ database: StoreDatabase) async throws {
        let store = try await store(database)
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

    @Test(arguments: StoreDatabase.allCases) func aFailingWriteLeavesNothingOfItsBatch(_ database: StoreDatabase) async throws {
        let store = try await store(database)
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
    // MARK: - Deletes

    @Test(arguments: StoreDatabase.allCases) func deletingAConversationRemovesEverythingOfIt(_ database: StoreDatabase) async throws {
        let store = try await store(database)
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
}
