import Foundation
import NIOCore
import NIOPosix
import RalphAPI
import RalphFiles
import RalphSimulator

#if canImport(Glibc)
import Glibc
#endif

/// Figure 7: the latency of a chat chunk from the claude double's stdout to a conversation stream client.
extension Bench {

    /// A conversation with the claude double in the live workspace.
    func createConversation(port: Int, cwd: String) throws -> String {
        let http = try BlockingHTTP(port: port)
        let body = try JSONSerialization.data(withJSONObject: ["cwd": cwd, "title": "bench"])
        let response = try http.request(method: "POST", path: "/api/conversations") { Array(body) }
        guard (200..<300).contains(response.status),
            let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], let id = object["id"] as? String
        else {
            throw BenchError("POST /api/conversations answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return id
    }

    /// The claude double streams `chatChunks` text deltas, each stamped right before it is written to its stdout;
    /// a client of the conversation's event stream takes each `chunk`'s latency.
    mutating func chatLatency(port: Int, conversation: String, group: MultiThreadedEventLoopGroup) async throws -> Latency {
        let tally = Tally()
        let phase = nextPhase()
        tally.begin(phase: phase, record: true)
        let (states, channels) = try await openSSEClients(
            group: group, host: "127.0.0.1", port: port, path: "/api/conversations/\(conversation)/events", headers: [], count: 1,
            tally: tally
        )
        let connected = await waitUntil(timeout: 10) { tally.connected >= 1 }
        guard connected else {
            await closeAll(channels)
            throw BenchError("chat: the conversation's event stream did not answer")
        }
        let http = try BlockingHTTP(port: port)
        let body = try JSONSerialization.data(withJSONObject: ["text": "#script\nstamped \(phase) \(options.chatChunks)"])
        let response = try http.request(method: "POST", path: "/api/conversations/\(conversation)/messages") { Array(body) }
        guard (200..<300).contains(response.status) else {
            await closeAll(channels)
            throw BenchError("chat: POST messages answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        let complete = await waitUntil(timeout: 60) { tally.received >= options.chatChunks || tally.closed > 0 }
        await closeAll(channels)
        guard complete, tally.received >= options.chatChunks else {
            throw BenchError("chat: \(tally.received) of \(options.chatChunks) stamped chunks arrived")
        }
        let latency = Latency(states.flatMap(\.latencies))
        note("chat: \(options.chatChunks) chunks (a delta every \(options.chatIntervalMs) ms): p50 \(fmt(latency.p50)) p99 \(fmt(latency.p99)) max \(fmt(latency.max)) ms")
        return latency
    }
}
