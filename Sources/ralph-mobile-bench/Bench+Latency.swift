import Foundation
import NIOCore
import NIOPosix
import RalphAPI
import RalphFiles
import RalphSimulator

#if canImport(Glibc)
import Glibc
#endif

/// Figures 1-4: append → SSE latency (ours and nginx + nchan), deliveries per second at saturation, resume time.
extension Bench {
    enum Target {
        case ours(port: Int, path: String, fd: Int32)
        case nchan(port: Int, path: String, publisher: BlockingHTTP)

        var port: Int {
            switch self {
            case .ours(let port, _, _), .nchan(let port, _, _): port
            }
        }
        var path: String {
            switch self {
            case .ours(_, let path, _), .nchan(_, let path, _): path
            }
        }

        /// Appends (ours) or POSTs (nchan) one stamped event; the stamp is taken right before the bytes are built.
        func publish(phase: Int, seq: Int) throws {
            let stamp = monotonicNanos()
            let payload = "bench:\(phase):\(seq):\(stamp)"
            switch self {
            case .ours(_, _, let fd):
                let line = EventFileAppender.recordLine(topic: "bench.tick", payload: payload, iteration: 1, hat: "bench") + [0x0A]
                let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                guard written == line.count else { throw BenchError("short write to the events file") }
            case .nchan(_, _, let publisher):
                let response = try publisher.request(method: "POST", path: "/pub") { Array(payload.utf8) }
                guard (200..<300).contains(response.status) else { throw BenchError("nchan publish answered \(response.status)") }
            }
        }
    }

    /// Percentiles (nearest rank) of latencies in nanoseconds, in milliseconds.
    struct Latency {
        var p50 = 0.0, p99 = 0.0, max = 0.0

        init(_ nanoseconds: [Int64]) {
            let all = nanoseconds.sorted()
            guard let last = all.last else { return }
            func at(_ q: Double) -> Double { Double(all[Swift.min(all.count - 1, Swift.max(0, Int((q * Double(all.count)).rounded(.up)) - 1))]) / 1e6 }
            p50 = at(0.5)
            p99 = at(0.99)
            max = Double(last) / 1e6
        }
    }

    /// Connects `clients`, warms up until every client receives events, then publishes `events` paced events.
    mutating func latency(_ target: Target, clients: Int, intervalMs: Double, group: MultiThreadedEventLoopGroup) async throws -> Latency {
        let tally = Tally()
        let (states, channels) = try await openSSEClients(
            group: group, host: "127.0.0.1", port: target.port, path: target.path, headers: [], count: clients, tally: tally
        )
        // Every path closes the connections before returning (no task left behind to close them later).
        do {
            try await warmUp(target, clients: clients, tally: tally)
            let phase = nextPhase()
            tally.begin(phase: phase, record: true)
            let interval = Int64(intervalMs * 1e6)
            var next = monotonicNanos()
            for seq in 0..<options.events {
                try target.publish(phase: phase, seq: seq)
                next += interval
                sleepUntil(next)
            }
        } catch {
            await closeAll(channels)
            throw error
        }
        let expected = clients * options.events
        let complete = await waitUntil(timeout: 30) { tally.received >= expected || tally.closed > 0 }
        await closeAll(channels)
        guard complete, tally.received >= expected else {
            throw BenchError("\(target.path): \(tally.received) of \(expected) deliveries arrived (\(tally.closed) connections closed)")
        }
        return Latency(states.flatMap(\.latencies))
    }

    /// Publishes single events until every client has received `rounds` of them in a row (subscriptions in place).
    mutating func warmUp(_ target: Target, clients: Int, tally: Tally) async throws {
        let connected = await waitUntil(timeout: 30) { tally.connected >= clients }
        guard connected else { throw BenchError("\(target.path): only \(tally.connected) of \(clients) SSE connections got a response") }
        let phase = nextPhase()
        tally.begin(phase: phase, record: false)
        for seq in 0..<options.warmupEvents {
            try target.publish(phase: phase, seq: seq)
            let ok = await waitUntil(timeout: 10) { tally.received >= clients * (seq + 1) }
            if !ok && seq >= 5 {
                throw BenchError("\(target.path): warm-up event \(seq) reached \(tally.received - clients * seq) of \(clients) clients")
            }
            if !ok { tally.begin(phase: phase, record: false) }  // subscriptions still settling: start counting again
        }
    }

    mutating func saturation(_ target: Target, clients: Int, events: Int, group: MultiThreadedEventLoopGroup) async throws -> Double {
        let tally = Tally()
        let (_, channels) = try await openSSEClients(
            group: group, host: "127.0.0.1", port: target.port, path: target.path, headers: [], count: clients, tally: tally
        )
        try await warmUp(target, clients: clients, tally: tally)
        let phase = nextPhase()
        tally.begin(phase: phase, record: false)
        let start = monotonicNanos()
        for seq in 0..<events { try target.publish(phase: phase, seq: seq) }
        let expected = clients * events
        let complete = await waitUntil(timeout: 120, poll: 0.001) { tally.received >= expected || tally.closed > 0 }
        let elapsed = Double(monotonicNanos() - start) / 1e9
        let received = tally.received, closed = tally.closed
        await closeAll(channels)
        guard complete, closed == 0 else {
            throw BenchError("saturation: \(received) of \(expected) deliveries in \(elapsed) s, \(closed) connections closed")
        }
        let rate = Double(received) / elapsed
        note("saturation: \(received) deliveries to \(clients) clients in \(fmt(elapsed * 1000)) ms = \(Int(rate))/s")
        return rate
    }

    func resumeTime(port: Int, session: String, phase: Int, group: MultiThreadedEventLoopGroup) async throws -> Double {
        let tally = Tally()
        tally.begin(phase: phase, record: false)
        let start = monotonicNanos()
        let (_, channels) = try await openSSEClients(
            group: group, host: "127.0.0.1", port: port, path: "/api/sessions/\(session)/events?end=close",
            headers: [("Last-Event-ID", "0")], count: 1, tally: tally
        )
        let complete = await waitUntil(timeout: 30, poll: 0.0005) { tally.received >= options.resumeEvents || tally.closed > 0 }
        let elapsed = Double(monotonicNanos() - start) / 1e6
        await closeAll(channels)
        guard complete, tally.received >= options.resumeEvents else {
            throw BenchError("resume: \(tally.received) of \(options.resumeEvents) events arrived")
        }
        note("resume: \(options.resumeEvents) events after Last-Event-ID 0 in \(fmt(elapsed)) ms")
        return elapsed
    }

    /// A fresh server (so no earlier measurement's heap is counted): its RSS once idle, then the RSS each of
}
