import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// Serves the original RalphMobile iOS app's session streams without its reconnect loop.
///
/// That app never expected a stream to end (the old server never closed one): after `end` it reconnected every 1–2 s
/// without `Last-Event-ID`, replaying the history again each time, and a network drop on a live run re-showed every
/// event. Our own clients say they understand `end` (``optsIn(_:)``: the header `Ralph-Stream-End: close` or
/// `?end=close`); a client that does neither and sends no `Last-Event-ID` is treated as that app:
///
/// - after `end` its connection stays open with heartbeats until it leaves, so it has nothing to reconnect from;
/// - a stream request from the same client (address, credentials and User-Agent) for a run it already streamed is a
///   reconnect and resumes after the last event it was sent — unless the same client asked for that run's `/status`
///   within ``screenOpening`` before: that is the app's screen opening (it clears its list, then GETs `/status`, then
///   streams), which gets the usual replay.
///
/// Memory is bounded: at most ``capacity`` clients × runs are remembered, each for ``memory``.
final class LegacyStreamClients: Sendable {
    static let capacity = 1024
    static let memory: TimeInterval = 3600
    static let screenOpening: TimeInterval = 5

    struct Key: Hashable, Sendable {
        var client: String
        var session: String
    }

    private struct State {
        var lastSent: [Key: (line: Int, at: Date)] = [:]
        var statusAsked: [Key: Date] = [:]
    }

    private let state = Mutex(State())

    /// Whether a request says it understands `end` (closes after it).
    static func optsIn(_ request: Request) -> Bool {
        if let header = request.headers[HTTPField.Name("Ralph-Stream-End")!], header.lowercased() == "close" { return true }
        return request.uri.queryParameters["end"] == "close"
    }

    /// Who is asking, as far as a reconnect can tell: the peer's address (not its port), its credentials, its agent.
    static func client(_ request: Request, _ context: AppRequestContext) -> String {
        let address = context.remoteAddress?.ipAddress ?? "?"
        let key = request.headers[HTTPField.Name("X-Api-Key")!] ?? request.headers[.authorization] ?? request.headers[.cookie] ?? ""
        let agent = request.headers[.userAgent] ?? ""
        return [address, String(key.hashValue, radix: 36), agent].joined(separator: "|")
    }

    /// The app asked for a run's `/status` (its screen is opening).
    func statusAsked(client: String, session: String, now: Date = Date()) {
        state.withLock { s in
            s.statusAsked[Key(client: client, session: session)] = now
            if s.statusAsked.count > Self.capacity { s.statusAsked = Self.newest(s.statusAsked.filter { now.timeIntervalSince($0.value) < Self.screenOpening }) { $0 } }
        }
    }

    /// Where a legacy stream request should start: after the last event this client was sent for this run when it
    /// reconnects; nil (the usual replay) when its screen is opening or it never streamed this run.
    func resumeLine(client: String, session: String, now: Date = Date()) -> Int? {
        state.withLock { s in
            let key = Key(client: client, session: session)
            if let asked = s.statusAsked.removeValue(forKey: key), now.timeIntervalSince(asked) < Self.screenOpening { return nil }
            guard let sent = s.lastSent[key], now.timeIntervalSince(sent.at) < Self.memory else { return nil }
            return sent.line
        }
    }

    /// Notes the last event id written to this client for this run.
    func sent(client: String, session: String, line: Int, now: Date = Date()) {
        state.withLock { s in
            s.lastSent[Key(client: client, session: session)] = (line, now)
            if s.lastSent.count > Self.capacity { s.lastSent = Self.newest(s.lastSent.filter { now.timeIntervalSince($0.value.at) < Self.memory }) { $0.at } }
        }
    }

    var count: Int { state.withLock { $0.lastSent.count + $0.statusAsked.count } }

    /// `entries` cut to the newest three quarters of ``capacity`` when it is still over it (oldest first out).
    private static func newest<Value>(_ entries: [Key: Value], at date: (Value) -> Date) -> [Key: Value] {
        guard entries.count > capacity else { return entries }
        let kept = entries.sorted { date($0.value) > date($1.value) }.prefix(capacity * 3 / 4)
        return Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
    }
}

/// A legacy client's stream writer: writes through, and notes the last `id:` line each write carried.
struct LegacyTrackingWriter: ResponseBodyWriter {
    var base: any ResponseBodyWriter
    let noted: @Sendable (Int) -> Void

    mutating func write(_ buffer: ByteBuffer) async throws {
        try await base.write(buffer)
        if let line = Self.lastEventLine(buffer) { noted(line) }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await base.finish(trailingHeaders)
    }

    /// The line number of the last `id: <line>[:<check>]` field in `buffer` (searched from its end).
    static func lastEventLine(_ buffer: ByteBuffer) -> Int? {
        let bytes = buffer.readableBytesView
        var index = bytes.endIndex
        let marker: [UInt8] = Array("id: ".utf8)
        while index > bytes.startIndex {
            index = bytes.index(before: index)
            guard bytes[index] == UInt8(ascii: "i"), index == bytes.startIndex || bytes[bytes.index(before: index)] == 0x0A else { continue }
            guard bytes.distance(from: index, to: bytes.endIndex) > marker.count, bytes[index..<(index + marker.count)].elementsEqual(marker) else { continue }
            var value = 0
            var cursor = index + marker.count
            var digits = 0
            while cursor < bytes.endIndex, (0x30...0x39).contains(bytes[cursor]) {
                value = value * 10 + Int(bytes[cursor] - 0x30)
                digits += 1
                cursor += 1
            }
            if digits > 0 { return value }
        }
        return nil
    }
}
