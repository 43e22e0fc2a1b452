import NIOCore
import Prometheus
import Synchronization

/// The fast path of an SSE stream: frames written by the connection's event loop straight to its socket, one pass per
/// loop for every stream of that loop, while the stream's writer task sleeps.
///
/// A stream's writer task replays, catches up and writes what its ``SubscriberQueue`` holds through the HTTP server's
/// response writer. Once it has written everything and the connection can take more, it hands the connection to its
/// loop (``SubscriberQueue/nextBatch(direct:)``): from then on the hub routes the stream's frames to the loop's
/// ``DirectDispatcher`` instead of queueing them and waking the task. The dispatcher, on the loop, writes each frame
/// batch — encoded once for all, already framed as an HTTP chunk — to every connection that takes it, then flushes each
/// connection once: one hop per loop and per burst, no task resumed, no allocation per connection.
///
/// The lossless rules do not change: a connection that cannot take more (its socket buffer full) is not written to;
/// the frames go to its queue, its writer task wakes and writes them with the HTTP server's backpressure, and a queue
/// over budget is caught up from the durable log as before. Everything that decides, for one stream, between the loop
/// and the task runs on the connection's loop, so frames keep their order.
final class DirectSink: @unchecked Sendable {
    // @unchecked: `deadlines` and `needsFlush` are touched only on `dispatcher.eventLoop` (checked in debug builds); the
    // rest is immutable or thread-safe (`Channel.isWritable`).

    /// How the response body is framed on the wire.
    enum Framing: Sendable {
        /// HTTP/1.1 chunked: each write is one chunk.
        case chunked
        /// As is, ended by closing the connection (an HTTP/1.0 client).
        case raw
    }

    let dispatcher: DirectDispatcher
    let framing: Framing
    private let channel: any Channel
    /// First in the pipeline: what it writes goes to the socket as is.
    private let deadlines: ConnectionDeadlineHandler
    fileprivate var needsFlush = false
    /// Counts the frames written here (the server's live frames counter; nil: not counted).
    fileprivate let delivered: Prometheus.Counter?

    private init(dispatcher: DirectDispatcher, framing: Framing, channel: any Channel, deadlines: ConnectionDeadlineHandler, delivered: Prometheus.Counter?) {
        self.dispatcher = dispatcher
        self.framing = framing
        self.channel = channel
        self.deadlines = deadlines
        self.delivered = delivered
    }

    /// The sink of the response being written on `channel`, or nil when its pipeline is not the server's guarded
    /// HTTP/1 pipeline or the response's length is fixed. Call on the channel's event loop, after the response head.
    static func make(for channel: any Channel, delivered: Prometheus.Counter? = nil) -> DirectSink? {
        channel.eventLoop.preconditionInEventLoop()
        let operations = channel.pipeline.syncOperations
        guard let deadlines = try? operations.handler(type: ConnectionDeadlineHandler.self),
            let framing = try? operations.handler(type: ResponseFraming.self).bodyFraming
        else { return nil }
        return DirectSink(dispatcher: DirectDispatcher.of(channel.eventLoop), framing: framing, channel: channel, deadlines: deadlines, delivered: delivered)
    }

    /// Whether the connection takes more without waiting (its pending bytes under the high watermark).
    var isWritable: Bool { channel.isWritable && channel.isActive }

    fileprivate func write(_ frames: inout DirectFrames) {
        dispatcher.eventLoop.assertInEventLoop()
        deadlines.writeDirect(frames.bytes(framing))
    }

    fileprivate func flush() {
        needsFlush = false
        deadlines.flushDirect()
    }
}

/// What a dispatcher delivers: frames with their log positions (nil for a heartbeat), or the stream's last frame.
enum DirectBatch: Sendable {
    case frames([(position: Int?, frame: ByteBuffer)])
    case end(ByteBuffer)
}

/// A batch's frames as written: the frames one after the other, as one HTTP chunk or as is — each built once, on
/// first use, and shared by every connection.
struct DirectFrames {
    private let frames: [(position: Int?, frame: ByteBuffer)]
    private var raw: ByteBuffer?
    private var chunked: ByteBuffer?

    init(_ frames: [(position: Int?, frame: ByteBuffer)]) {
        self.frames = frames
    }

    mutating func bytes(_ framing: DirectSink.Framing) -> ByteBuffer {
        let raw = self.raw ?? Self.concatenated(frames)
        self.raw = raw
        guard framing == .chunked else { return raw }
        if let chunked { return chunked }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(raw.readableBytes + 12)
        buffer.writeString(String(raw.readableBytes, radix: 16))
        buffer.writeStaticString("\r\n")
        buffer.writeImmutableBuffer(raw)
        buffer.writeStaticString("\r\n")
        chunked = buffer
        return buffer
    }

    private static func concatenated(_ frames: [(position: Int?, frame: ByteBuffer)]) -> ByteBuffer {
        if frames.count == 1 { return frames[0].frame }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(frames.reduce(0) { $0 + $1.frame.readableBytes })
        for (_, frame) in frames { buffer.writeImmutableBuffer(frame) }
        return buffer
    }
}

/// One per event loop: takes the batches routed to the loop's connections and delivers them in one pass on the loop
/// (see ``DirectSink``). Batches submitted before the pass runs are delivered by the same pass, and each connection is
/// flushed once at its end: what a burst brings reaches a connection in one write.
final class DirectDispatcher: Sendable {
    private struct Pending {
        var batches: [(batch: DirectBatch, queues: [SubscriberQueue])] = []
        var scheduled = false
    }

    let eventLoop: any EventLoop
    private let pending = Mutex(Pending())

    private init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Dispatchers by loop. A dispatcher holds its loop, so an identifier is never reused while it is listed.
    private static let all = Mutex<[ObjectIdentifier: DirectDispatcher]>([:])

    static func of(_ eventLoop: any EventLoop) -> DirectDispatcher {
        all.withLock { all in
            let key = ObjectIdentifier(eventLoop)
            if let dispatcher = all[key] { return dispatcher }
            let dispatcher = DirectDispatcher(eventLoop: eventLoop)
            all[key] = dispatcher
            return dispatcher
        }
    }

    /// Queues `batch` for `queues` (each routed to this loop); batches are delivered in the order submitted. Callers
    /// submit under the lock that orders their frames, so one stream's batches never overtake each other.
    func submit(_ batch: DirectBatch, to queues: [SubscriberQueue]) {
        let schedule = pending.withLock { pending in
            pending.batches.append((batch, queues))
            defer { pending.scheduled = true }
            return !pending.scheduled
        }
        if schedule { eventLoop.execute { self.deliver() } }
    }

    /// On the loop: every pending batch to its connections, then one flush per connection written to.
    private func deliver() {
        let batches = pending.withLock { pending in
            pending.scheduled = false
            defer { pending.batches = [] }
            return pending.batches
        }
        var written: [DirectSink] = []
        for (batch, queues) in batches {
            switch batch {
            case .frames(let frames):
                var shared = DirectFrames(frames)
                // Heartbeats (no position) are not frames of the stream's content.
                var count = 0
                for frame in frames where frame.position != nil { count += 1 }
                for queue in queues {
                    guard let sink = queue.takeOnLoop(frames) else { continue }
                    sink.write(&shared)
                    if count > 0 { sink.delivered?.increment(by: Int64(count)) }
                    if !sink.needsFlush {
                        sink.needsFlush = true
                        written.append(sink)
                    }
                }
            case .end(let frame):
                for queue in queues { queue.endOnLoop(with: frame) }
            }
        }
        for sink in written { sink.flush() }
    }
}

/// Groups the queues a frame batch is routed to by their loop, so each loop gets one submission.
struct DirectRoutes {
    private var groups: [(dispatcher: DirectDispatcher, queues: [SubscriberQueue])] = []

    mutating func add(_ queue: SubscriberQueue, via dispatcher: DirectDispatcher) {
        if let index = groups.firstIndex(where: { $0.dispatcher === dispatcher }) {
            groups[index].queues.append(queue)
        } else {
            groups.append((dispatcher, [queue]))
        }
    }

    func submit(_ batch: DirectBatch) {
        for (dispatcher, queues) in groups { dispatcher.submit(batch, to: queues) }
    }
}
