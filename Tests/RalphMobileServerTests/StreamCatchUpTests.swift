import Foundation
import NIOCore
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Conversation and global streams never cut a client that falls behind: it catches up from their durable logs (the
/// chat event table, the global log) and rejoins the live feed.
@Suite("Catching up on conversation and global streams", .serialized)
struct StreamCatchUpTests {
    @Test("a conversation client far behind catches up from the stored events: every sequence number once, in order")
    func conversationCatchUp() async throws {
        let f = try await ChatFixture.start(cli: .fake) { $0.subscriberQueueBytes = 2048 }
        defer { Task { await f.stop() } }
        let c = try await f.create()
        let slow = try await SSETestClient.Paused.connect(f.base + "/api/conversations/\(c.id)/events?after=0")
        // Twenty replies of twenty 4 KB chunks: 1.6 MB in all, more than the socket buffers and the 2 KB budget hold.
        let words = (1...20).map { "w\($0)" + String(repeating: "x", count: 4096) }.joined(separator: " ")
        let live = try await f.events(c.id)
        var all: [SSEMessage] = []
        for _ in 1...20 {
            let sent = try await f.send(c.id, script("say " + words))
            all += try await live.messages(until: "complete", timeout: 30) { $0.json["turn_id"] as? String == sent.turnId }
        }
        let lastSeq = try #require(all.last?.id.flatMap(Int.init))
        #expect(lastSeq > 300, "enough events to pass the budget many times: \(lastSeq)")
        #expect(f.server.server.chat.chatHub.subscriberCount == 2, "the slow client was not cut")
        let reader = slow.resume()
        var seqs: [Int] = []
        while seqs.last != lastSeq {
            let message = try await reader.nextMessage(timeout: 10)
            if let seq = message.id.flatMap(Int.init) { seqs.append(seq) }
        }
        #expect(seqs == Array(1...lastSeq))
        #expect(f.server.server.chat.chatHub.catchUpCount >= 1, "it really fell behind and caught up")
    }

    @Test("a global subscriber far behind catches up from the global log, or from a fresh snapshot once the log no longer reaches back")
    func globalCatchUp() async throws {
        let hub = EventHub(queueBytes: 4096, queueFrames: 8, globalLogCapacity: 64)
        let (queue, subscriber, _) = hub.subscribeGlobal(lastEventID: nil)
        let big = String(repeating: "x", count: 1000)
        // A writer that reads the queue and catches up when told, as the route does.
        func drain() async -> [String] {
            var names: [String] = []
            while true {
                let batch = await queue.nextBatch()
                for item in batch {
                    switch item {
                    case .frame(let frame): names.append(Self.idAndName(frame))
                    case .catchUp(let after): names += hub.globalCatchUp(subscriberID: subscriber, after: after).map(Self.idAndName)
                    case .heartbeat, .end: break
                    }
                }
                if queue.queuedBytes == 0 && !queue.isLagging { return names }
            }
        }
        for i in 1...40 { hub.publishConversation(name: "conversation.updated", value: ["n": "\(i)", "pad": big]) }
        #expect(queue.isLagging, "40 KB behind a 4 KB budget")
        let first = await drain()
        #expect(first.map { $0.split(separator: " ").first.map(String.init) ?? "" } == (1...40).map { "\(hub.epoch)-\($0)" }, "every change once, in order")
        #expect(hub.catchUpCount == 1)
        // Further behind than the log reaches: a snapshot and a `ready`, as for a new subscriber.
        for i in 41...200 { hub.publishConversation(name: "conversation.updated", value: ["n": "\(i)", "pad": big]) }
        let second = await drain()
        #expect(second.contains { $0.hasSuffix("ready") })
        #expect(second.last?.hasPrefix("\(hub.epoch)-200") == true)
    }

    /// `<id> <event name>` of a frame.
    static func idAndName(_ frame: ByteBuffer) -> String {
        let text = String(buffer: frame)
        let fields = Dictionary(text.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }, uniquingKeysWith: { first, _ in first })
        return (fields["id"] ?? "-") + " " + (fields["event"] ?? "")
    }
}
