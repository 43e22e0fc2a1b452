import NIOCore
import NIOPosix
import Testing

@testable import RalphMobileServer

@Suite("Subscriber queue: batches for one write, order, cut, end")
struct SubscriberQueueTests {
    static func frame(_ n: Int) -> ByteBuffer { ByteBuffer(string: "id: \(n)\n\n") }

    static func text(_ items: [SubscriberQueue.Item]) -> [String] {
        items.map { item in
            switch item {
            case .frame(let buffer): String(buffer: buffer)
            case .heartbeat: "heartbeat"
            case .end(let buffer): "end " + String(buffer: buffer)
            }
        }
    }

    @Test("a batch is everything queued, in order, up to the limit; the rest comes next")
    func batchesInOrder() async {
        let queue = SubscriberQueue(capacity: 100)
        for n in 1...5 { #expect(queue.push(Self.frame(n))) }
        #expect(Self.text(await queue.nextBatch(limit: 3)) == ["id: 1\n\n", "id: 2\n\n", "id: 3\n\n"])
        #expect(Self.text(await queue.nextBatch(limit: 3)) == ["id: 4\n\n", "id: 5\n\n"])
    }

    @Test("a waiting reader gets the first frame pushed, with whatever followed it")
    func waitsForTheFirst() async {
        let queue = SubscriberQueue(capacity: 100)
        async let batch = queue.nextBatch()
        try? await Task.sleep(for: .milliseconds(50))
        queue.push(Self.frame(1))
        #expect(Self.text(await batch) == ["id: 1\n\n"])
        queue.push(Self.frame(2))
        queue.push(Self.frame(3))
        #expect(Self.text(await queue.nextBatch()) == ["id: 2\n\n", "id: 3\n\n"])
    }

    @Test("the end frame is the last item; after it the queue reports the end with an empty batch")
    func endIsLast() async {
        let queue = SubscriberQueue(capacity: 100)
        queue.push(Self.frame(1))
        queue.end(with: ByteBuffer(string: "bye"))
        #expect(!queue.push(Self.frame(2)))
        #expect(Self.text(await queue.nextBatch()) == ["id: 1\n\n", "end bye"])
        #expect(await queue.nextBatch().isEmpty)
    }

    @Test("a subscriber that falls behind is cut: it drains what was queued, nothing after")
    func overflowDrainsThenStops() async {
        let queue = SubscriberQueue(capacity: 3)
        for n in 1...3 { #expect(queue.push(Self.frame(n))) }
        #expect(!queue.push(Self.frame(4)))
        #expect(queue.termination == .overflow)
        #expect(Self.text(await queue.nextBatch()) == ["id: 1\n\n", "id: 2\n\n", "id: 3\n\n"])
        #expect(await queue.nextBatch().isEmpty)
    }

    @Test("a reader on an event loop's executor runs there and receives every frame in order")
    func readerOnEventLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let queue = SubscriberQueue(capacity: 10_000)
        let reader = Task {
            try await EventLoopExecutor.run(on: loop) { () async -> (Bool, [String]) in
                var seen: [String] = []
                var onLoop = true
                while true {
                    let batch = await queue.nextBatch(limit: 7)
                    onLoop = onLoop && loop.inEventLoop
                    if batch.isEmpty { return (onLoop, seen) }
                    seen += Self.text(batch)
                }
            }
        }
        for n in 1...1000 { queue.push(Self.frame(n)) }
        queue.close()
        let (onLoop, seen) = try await reader.value
        #expect(onLoop)
        #expect(seen == (1...1000).map { "id: \($0)\n\n" })
    }
}
