import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in nanoseconds: the writer stamps with it, the clients compare against it (same process).
@inline(__always) func monotonicNanos() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// What the clients of one measurement share: the phase whose stamped events count, and the number received.
final class Tally: @unchecked Sendable {
    private let lock = NIOLock()
    private var _phase = -1
    private var _received = 0
    private var _connected = 0
    private var _closed = 0
    private var _record = false

    /// Starts counting the events of `phase` (from zero); `record` keeps their latencies.
    func begin(phase: Int, record: Bool) { lock.withLock { _phase = phase; _received = 0; _record = record } }
    var received: Int { lock.withLock { _received } }
    var connected: Int { lock.withLock { _connected } }
    var closed: Int { lock.withLock { _closed } }
    func didConnect() { lock.withLock { _connected += 1 } }
    func didClose() { lock.withLock { _closed += 1 } }
    /// Counts a stamped event if it belongs to the current phase; true if its latency is to be kept.
    func count(phase: Int) -> Bool {
        lock.withLock {
            guard phase == _phase else { return false }
            _received += 1
            return _record
        }
    }
}

/// One SSE connection's state. Touched only on its channel's event loop until the measurement is over.
final class SSEClientState: @unchecked Sendable {
    var status: UInt = 0
    var latencies: [Int64] = []
    var dataLines = 0
    var lastID = -1
    var closed = false
    init() { latencies.reserveCapacity(4096) }
}

/// A minimal SSE parser over NIO's HTTP/1 client decoder: `id:` lines and `data:` lines carrying
/// `bench:<phase>:<seq>:<monotonic ns>` (inside our JSON line or as nchan's whole message).
final class SSEHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let state: SSEClientState
    let tally: Tally
    let request: HTTPRequestHead
    private var line: [UInt8] = []

    init(state: SSEClientState, tally: Tally, request: HTTPRequestHead) {
        self.state = state
        self.tally = tally
        self.request = request
        line.reserveCapacity(512)
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(request)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            state.status = head.status.code
            tally.didConnect()
        case .body(let buffer):
            buffer.withUnsafeReadableBytes { bytes in
                for byte in bytes {
                    if byte == UInt8(ascii: "\n") {
                        handleLine()
                        line.removeAll(keepingCapacity: true)
                    } else if byte != UInt8(ascii: "\r") {
                        line.append(byte)
                    }
                }
            }
        case .end:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.closed = true
        tally.didClose()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private static let idPrefix = Array("id:".utf8)
    private static let dataPrefix = Array("data:".utf8)
    private static let marker = Array("bench:".utf8)

    private func handleLine() {
        if line.starts(with: Self.idPrefix) {
            var value = 0
            for byte in line.dropFirst(3) where byte >= 48 && byte <= 57 { value = value * 10 + Int(byte - 48) }
            state.lastID = value
            return
        }
        guard line.starts(with: Self.dataPrefix) else { return }
        state.dataLines += 1
        // Every "bench:<phase>:<seq>:<ns>" in the line (a chat chunk may carry several deltas).
        let n = line.count, m = Self.marker.count
        var i = 0
        while i + m <= n {
            guard line[i] == UInt8(ascii: "b"), line[i + 1] == UInt8(ascii: "e"), line[i + 2] == UInt8(ascii: "n"),
                line[i + 3] == UInt8(ascii: "c"), line[i + 4] == UInt8(ascii: "h"), line[i + 5] == UInt8(ascii: ":")
            else {
                i += 1
                continue
            }
            var numbers: (Int64, Int64, Int64) = (0, 0, 0)
            var index = 0
            var j = i + m
            var digits = 0
            while j < n && index < 3 {
                let byte = line[j]
                if byte >= 48 && byte <= 57 {
                    let digit = Int64(byte - 48)
                    switch index {
                    case 0: numbers.0 = numbers.0 * 10 + digit
                    case 1: numbers.1 = numbers.1 * 10 + digit
                    default: numbers.2 = numbers.2 * 10 + digit
                    }
                    digits += 1
                } else if byte == UInt8(ascii: ":") && index < 2 {
                    index += 1
                } else {
                    break
                }
                j += 1
            }
            i = j
            guard index == 2, digits > 0 else { continue }
            let now = monotonicNanos()
            if tally.count(phase: Int(numbers.0)) {
                state.latencies.append(now - numbers.2)
            }
        }
    }
}

/// Opens `count` SSE connections to host:port/path, each sending `headers`.
func openSSEClients(
    group: MultiThreadedEventLoopGroup, host: String, port: Int, path: String, headers: [(String, String)], count: Int,
    tally: Tally
) async throws -> (states: [SSEClientState], channels: [any Channel]) {
    var states: [SSEClientState] = []
    var channels: [any Channel] = []
    var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
    head.headers.add(name: "Host", value: "\(host):\(port)")
    head.headers.add(name: "Accept", value: "text/event-stream")
    for (name, value) in headers { head.headers.add(name: name, value: value) }
    let request = head
    // Connect in batches so the listen backlog is never the limit.
    let batch = 100
    var opened = 0
    while opened < count {
        let n = min(batch, count - opened)
        var futures: [EventLoopFuture<any Channel>] = []
        var batchStates: [SSEClientState] = []
        for _ in 0..<n {
            let state = SSEClientState()
            batchStates.append(state)
            let bootstrap = ClientBootstrap(group: group)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(SSEHandler(state: state, tally: tally, request: request))
                    }
                }
            futures.append(bootstrap.connect(host: host, port: port))
        }
        for future in futures { channels.append(try await future.get()) }
        states.append(contentsOf: batchStates)
        opened += n
    }
    return (states, channels)
}

func closeAll(_ channels: [any Channel]) async {
    for channel in channels { try? await channel.close() }
}

/// Waits until `condition` holds or `timeout` seconds pass; returns whether it held.
func waitUntil(timeout: Double, poll: Double = 0.002, _ condition: () -> Bool) async -> Bool {
    let deadline = monotonicNanos() + Int64(timeout * 1e9)
    while monotonicNanos() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: UInt64(poll * 1e9))
    }
    return condition()
}
