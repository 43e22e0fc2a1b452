import NIOCore
import NIOPosix
import Testing

@testable import RalphMobileServer

@Suite("Subscriber queue: batches for one write, order, a byte budget and catching up, end")
struct SubscriberQueueTests {
    static func frame(_ n: Int, size: Int = 0) -> ByteBuffer { ByteBuffer(string: "id: \(n)\n" + String(repeating: "x", count: size) + "\n") }

    static func queue(bytes: Int = 1 << 20, frames: Int = 10_000, at position: Int = 0) -> SubscriberQueue {
        SubscriberQueue(byteBudget: bytes, frameLimit: frames, position: position)
    }

    static func text(_ items: [SubscriberQueue.Item]) -> [String] {
        items.map { item in
            switch item {
            case .frame(let buffer): String(buffer: buffer).split(separator: "\n").first.map(String.init) ?? ""
            case .heartbeat: "heartbeat"
            case .catchUp(let after): "catch up after \(after)"
            case .end(let buffer): "end " + String(buffer: buffer)
            }
        }
    }

    @Test("a batch is everything queued, in order, up to the limit; the rest comes next")
    func batchesInOrder() async {
        let queue = Self.queue()
        for n in 1...5 { #expect(queue.push(Self.frame(n), position: n)) }
        #expect(Self.text(await queue.nextBatch(limit: 3)) == ["id: 1", "id: 2", "id: 3"])
        #expect(Self.text(await queue.nextBatch(limit: 3)) == ["id: 4", "id: 5"])
        #expect(queue.queuedBytes == 0)
    }

    @Test("a waiting reader gets the first frame pushed, with whatever followed it")
    func waitsForTheFirst() async {
        let queue = Self.queue()
        async let batch = queue.nextBatch()
        try? await Task.sleep(for: .milliseconds(50))
        queue.push(Self.frame(1), position: 1)
        #expect(Self.text(await batch) == ["id: 1"])
        queue.push(Self.frame(2), position: 2)
        queue.push(Self.frame(3), position: 3)
        #expect(Self.text(await queue.nextBatch()) == ["id: 2", "id: 3"])
    }

    @Test("the end frame is the last item; after it the queue reports the end with an empty batch")
    func endIsLast() async {
        let queue = Self.queue()
        queue.push(Self.frame(1), position: 1)
        queue.end(with: ByteBuffer(string: "bye"))
        #expect(!queue.push(Self.frame(2), position: 2))
        #expect(Self.text(await queue.nextBatch()) == ["id: 1", "end bye"])
        #expect(await queue.nextBatch().isEmpty)
    }

    @Test("over its byte budget a subscriber is not cut: it drains what it has, then catches up from where that ended")
    func overBudgetCatchesUp() async {
        let queue = Self.queue(bytes: 3000)
        for n in 1...3 { #expect(queue.push(Self.frame(n, size: 900), position: n)) }
        // The fourth would pass the budget: from now on nothing is queued; the writer will read the log after 3.
        for n in 4...1000 { #expect(queue.push(Self.frame(n, size: 900), position: n), "never cut") }
        #expect(queue.isLagging)
        #expect(queue.termination == nil)
        #expect(queue.queuedBytes <= 3000, "memory stays within the budget: \(queue.queuedBytes)")
        #expect(Self.text(await queue.nextBatch()) == ["id: 1", "id: 2", "id: 3", "catch up after 3"])
        // Caught up to the head (under the hub's lock): live frames are queued again.
        queue.rejoin(at: 1000)
        #expect(!queue.isLagging)
        queue.push(Self.frame(1001), position: 1001)
        #expect(Self.text(await queue.nextBatch()) == ["id: 1001"])
    }

    @Test("a burst larger than the frame limit makes a catch-up, not a cut")
    func frameLimit() async {
        let queue = Self.queue(frames: 4096, at: 10)
        for n in 11...10_010 { #expect(queue.push(Self.frame(n), position: n)) }
        var seen: [String] = []
        while true {
            let batch = Self.text(await queue.nextBatch(limit: 10_000))
            seen += batch
            if batch.last?.hasPrefix("catch up") == true { break }
        }
        #expect(seen.count == 4097)
        #expect(seen.last == "catch up after 4106")
    }

    @Test("a lagging subscriber still gets the end frame, after its catch-up")
    func endAfterCatchUp() async {
        let queue = Self.queue(bytes: 100)
        queue.push(Self.frame(1, size: 90), position: 1)
        queue.push(Self.frame(2, size: 90), position: 2)
        queue.end(with: ByteBuffer(string: "bye"))
        #expect(Self.text(await queue.nextBatch()) == ["id: 1", "catch up after 1"])
        #expect(Self.text(await queue.nextBatch()) == ["end bye"])
        #expect(await queue.nextBatch().isEmpty)
    }

    @Test("a reader on an event loop's executor runs there and receives every frame in order")
    func readerOnEventLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let queue = Self.queue()
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
        for n in 1...1000 { queue.push(Self.frame(n), position: n) }
        queue.close()
        let (onLoop, seen) = try await reader.value
        #expect(onLoop)
        #expect(seen == (1...1000).map { "id: \($0)" })
    }

    @Test("the watchdog closes the connection of a stream whose write has waited too long, and only that one")
    func watchdog() async {
        let watchdog = StreamWatchdog()
        let closed = Locked<[String]>([])
        let (stuckID, stuck) = watchdog.register { closed.withLock { $0.append("stuck") } }
        let (_, reading) = watchdog.register { closed.withLock { $0.append("reading") } }
        let started = ContinuousClock.now
        let blocked = Task { await stuck.writing { try? await Task.sleep(for: .seconds(5)) } }
        try? await Task.sleep(for: .milliseconds(50))
        await reading.writing {}
        #expect(watchdog.sweep(now: started + .seconds(1), timeout: .seconds(2)) == 0)
        #expect(watchdog.sweep(now: started + .seconds(3), timeout: .seconds(2)) == 1)
        #expect(closed.value == ["stuck"])
        #expect(watchdog.count == 1)
        watchdog.unregister(stuckID)
        blocked.cancel()
    }
}
