import Foundation
import Synchronization

/// The original RalphMobile iOS app's session screen, as far as its stream goes (reference §8.3), modelled from its
/// behaviour: `connect(to:)` clears the list, GETs `/status`, and streams only a run that is active (`mode == "live"`
/// or status running/paused); the stream request carries no `Last-Event-ID` and no word that it understands `end`;
/// every `data:` line that decodes is inserted newest first (at most 500 kept); when the stream ends normally or
/// fails it reconnects after about 1–2 s (its backoff is reset on every attempt) without clearing the list; 404 and
/// 401 end it for good.
final class OriginalAppStream: Sendable {
    struct Seen: Sendable {
        /// Every event decoded, in arrival order (duplicates kept: that is what the app would show twice).
        var events: [(id: String?, topic: String)] = []
        var ends = 0
        /// Stream requests after the first.
        var reconnects = 0
        var terminal: String?
    }

    let base: String
    let sessionID: String
    /// The `X-Api-Key` it sends, if the server needs one.
    let headers: [(String, String)]
    let seen = Mutex(Seen())

    init(base: String, sessionID: String, key: String? = nil) {
        self.base = base
        self.sessionID = sessionID
        self.headers = key.map { [("X-Api-Key", $0)] } ?? []
    }

    /// `GET /status` then the stream: the screen opening. Returns false when the app would not stream (not active).
    func openScreen() async throws -> Bool {
        seen.withLock { $0.events = [] }
        let status = try await HTTP.get(base + "/api/sessions/\(sessionID)/status", headers: headers)
        guard status.status == 200, let object = try JSONSerialization.jsonObject(with: status.body) as? [String: Any] else { return false }
        let active = object["mode"] as? String == "live" || ["running", "paused"].contains(object["status"] as? String ?? "")
        return active
    }

    /// Streams for `seconds`, reconnecting as the app does; `dropAfter` closes the connection from the app's side
    /// once that many events arrived on it (a network drop), once.
    func stream(for seconds: Double, dropAfter: Int? = nil) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        var attempts = 0
        var dropAt = dropAfter
        while Date() < deadline {
            if attempts > 0 { seen.withLock { $0.reconnects += 1 } }
            attempts += 1
            let client = try await SSETestClient.connect(base + "/api/sessions/\(sessionID)/events", headers: headers, legacy: true)
            guard client.status == 200 else {
                if client.status == 404 || client.status == 401 {
                    seen.withLock { $0.terminal = "HTTP \(client.status)" }
                    return
                }
                try await Task.sleep(for: .seconds(1))
                continue
            }
            var onThisConnection = 0
            // After `dropAt` events the connection is dropped at the next quiet moment (nothing more arriving for
            // 200 ms), so what the server wrote before the drop was all received.
            var draining = false
            reading: while Date() < deadline {
                let item: SSETestClient.Item
                do {
                    item = try await client.next(timeout: draining ? 0.2 : max(0.05, deadline.timeIntervalSinceNow))
                } catch {
                    if draining { dropAt = nil }
                    break reading  // quiet while draining: drop now; otherwise the test's time is up
                }
                switch item {
                case .message(let m):
                    if m.event == "end" { seen.withLock { $0.ends += 1 } }
                    guard m.event == "workflow", let topic = m.json["topic"] as? String else { continue }
                    seen.withLock { $0.events.append((m.id, topic)) }
                    onThisConnection += 1
                    if let limit = dropAt, onThisConnection >= limit { draining = true }
                case .comment, .retry: continue
                case .closed, .failed: break reading
                }
            }
            client.cancel()
            guard Date() < deadline else { return }
            try await Task.sleep(for: .milliseconds(1000 + Int.random(in: 0..<500)))
        }
    }
}
