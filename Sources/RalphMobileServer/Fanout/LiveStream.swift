import Hummingbird
import NIOCore

/// Replay-then-live, written once for every stream that follows a durable log through a ``Fanout``: a run's events
/// file, a conversation's event table.
///
/// The subscription's head was read under the fan-out's lock when the queue was registered, so writing the log's
/// entries up to it and then the queue's frames loses nothing and repeats nothing. A subscriber that falls behind its
/// queue's budget is handed back to the log (``catchUp``) and rejoins the queue where the log ends.
enum LiveStream {
    /// Writes the log's entries with positions in (after, through].
    typealias Replay = (_ after: Int, _ through: Int, _ writer: inout any ResponseBodyWriter) async throws -> Void

    /// Replays (after, live.head], then forwards the live queue until it ends.
    static func follow<Key: Hashable & Sendable>(
        _ live: Fanout<Key>.Live, key: Key, fanout: Fanout<Key>, after: Int, replay: Replay,
        writer: inout any ResponseBodyWriter, watch: StreamWatchdog.Watch, channel: any Channel, direct: Bool = true
    ) async throws {
        try await replay(after, live.head, &writer)
        try await forward(live.queue, writer: &writer, watch: watch, channel: channel, direct: direct) { writer, from in
            try await catchUp(live, key: key, fanout: fanout, after: from, replay: replay, writer: &writer)
        }
    }

    /// A subscriber that fell behind reads the log after `after` up to the head, as often as the head moves meanwhile,
    /// then rejoins the live feed.
    @inline(never)
    static func catchUp<Key: Hashable & Sendable>(
        _ live: Fanout<Key>.Live, key: Key, fanout: Fanout<Key>, after: Int, replay: Replay, writer: inout any ResponseBodyWriter
    ) async throws {
        var position = after
        while let head = fanout.head(key) {
            if head > position {
                try await replay(position, head, &writer)
                position = head
            }
            if fanout.rejoin(key, subscriberID: live.id, at: position) { return }
        }
    }

    /// Writes queued frames until the queue ends. What queued up while the last write was in flight goes out in one
    /// write (one syscall for a burst, not one per frame); frames are never dropped or reordered. A catch-up marker
    /// (the subscriber fell behind its budget) hands the writer to `catchUp`, which reads the durable log and rejoins.
    /// It runs on the connection's event loop, so a wake-up and its write are one hop, not two. With `direct` (every
    /// byte of the stream written through `writer` as is — not a writer that looks at what it writes), the writer
    /// hands the connection to its loop whenever it has nothing to write, and frames are written there without waking
    /// it (``DirectSink``).
    static func forward(
        _ queue: SubscriberQueue, writer: inout any ResponseBodyWriter, watch: StreamWatchdog.Watch, channel: any Channel, direct: Bool = true,
        catchUp: (inout any ResponseBodyWriter, Int) async throws -> Void
    ) async throws {
        try await EventLoopExecutor.run(on: channel.eventLoop) {
            // Nothing is written for the stream once its writer stops: not on the loop, not queued.
            defer { queue.detach() }
            let sink = direct ? DirectSink.make(for: channel, delivered: watch.counters?.liveFrames) : nil
            try await forward(queue, writer: &writer, watch: watch, direct: sink, catchUp: catchUp)
        }
    }

    private static func forward(
        _ queue: SubscriberQueue, writer: inout any ResponseBodyWriter, watch: StreamWatchdog.Watch, direct: DirectSink?,
        catchUp: (inout any ResponseBodyWriter, Int) async throws -> Void
    ) async throws {
        while true {
            let batch = await queue.nextBatch(direct: direct)
            if batch.isEmpty { return }
            if batch.count == 1, case .frame(let frame) = batch[0] {
                try await watch.writing { try await writer.write(frame) }
                watch.counters?.liveFrames.increment()
                continue
            }
            var buffer = ByteBuffer()
            var frames = 0
            var ended = false
            for item in batch {
                switch item {
                case .frame(var frame):
                    buffer.writeBuffer(&frame)
                    frames += 1
                case .heartbeat: buffer.writeImmutableBuffer(SSEFrame.heartbeat)
                case .end(var frame):
                    buffer.writeBuffer(&frame)
                    frames += 1
                    ended = true
                case .catchUp(let after):
                    if buffer.readableBytes > 0 {
                        let pending = buffer
                        try await watch.writing { try await writer.write(pending) }
                        buffer.clear()
                        watch.counters?.liveFrames.increment(by: Int64(frames))
                        frames = 0
                    }
                    try await catchUp(&writer, after)
                }
                if ended { break }
            }
            if buffer.readableBytes > 0 {
                let pending = buffer
                try await watch.writing { try await writer.write(pending) }
                if frames > 0 { watch.counters?.liveFrames.increment(by: Int64(frames)) }
            }
            if ended { return }
        }
    }
}
