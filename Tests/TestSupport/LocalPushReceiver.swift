import AgentRunner
import Foundation
import NIOCore
import NIOHTTP1
import RalphAPI

/// `Tests/Receivers/push_receiver.py` (the local Web Push, ntfy and webhook receivers, written independently of the
/// server's Swift code) running on a free port, for the clients' tests. Its Python packages come from
/// `scripts/receivers` (downloaded once into a cache).
public final class LocalPushReceiver: Sendable {
    /// `http://127.0.0.1:<port>`.
    public let origin: String
    private let process: AgentProcess

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The directory of the receivers' Python packages (for `PYTHONPATH`), from `scripts/receivers`.
    public static func sitePath() async throws -> String {
        let setup = try await Products.run(executable: repository + "/scripts/receivers", [])
        guard setup.status == 0, let line = setup.stdout.split(separator: "\n").first(where: { $0.hasPrefix("RALPH_MOBILE_RECEIVERS_PATH=") }) else {
            throw TestFailure("scripts/receivers failed (\(setup.status)): \(setup.stderr)")
        }
        return String(line.dropFirst("RALPH_MOBILE_RECEIVERS_PATH=".count))
    }

    public static func start() async throws -> LocalPushReceiver {
        let site = try await sitePath()
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = site
        let process = try AgentProcess.start(
            executable: environment["PYTHON"] ?? "python3", arguments: [repository + "/Tests/Receivers/push_receiver.py"], workingDirectory: "/",
            environment: environment)
        let first: [UInt8]? = try await withTimeout(15, "the push receiver to listen") {
            var lines = process.lines.makeAsyncIterator()
            return await lines.next()
        }
        let text = first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard let range = text.range(of: "http://") else {
            await process.terminate()
            throw TestFailure("the push receiver did not start: \(text) \(process.stderrTail)")
        }
        return LocalPushReceiver(origin: String(text[range.lowerBound...]).trimmingCharacters(in: .whitespacesAndNewlines), process: process)
    }

    private init(origin: String, process: AgentProcess) {
        self.origin = origin
        self.process = process
    }

    public func stop() async {
        await process.terminate(grace: .seconds(1))
    }

    /// A webhook URL whose requests are checked against `secret` (HMAC-SHA256 of `timestamp.body`).
    public func hook(secret: String) async throws -> String {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["secret": secret]), as: UTF8.self)
        let answer = try await HTTP.request(origin + "/control/hook", method: .POST, body: body)
        guard let url = (answer.object as? [String: Any])?["url"] as? String else { throw TestFailure("no hook url: \(answer.text)") }
        return url
    }

    /// The next answers on `path` (then 200/201 again).
    public func script(_ path: String, statuses: [Int]) async throws {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["path": path, "statuses": statuses]), as: UTF8.self)
        _ = try await HTTP.request(origin + "/control/script", method: .POST, body: body)
    }

    /// Every request recorded so far, waiting up to `timeout` seconds for `count` of them: `channel`, `path`, `status`,
    /// `payload` (the decrypted or posted JSON), `error` (what was wrong with it).
    public func received(count: Int = 0, timeout: Double = 0) async throws -> [[String: Any]] {
        let answer = try await HTTP.request(origin + "/control/received?count=\(count)&timeout=\(timeout)", timeout: .seconds(Int64(timeout) + 10))
        return (answer.object as? [[String: Any]]) ?? []
    }

    /// The payloads received at `path` that passed the receiver's checks, decoded as the message a device gets.
    public func messages(at path: String, count: Int, timeout: Double = 15) async throws -> [NotificationMessage] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let entries = try await received(count: 0, timeout: 0).filter { ($0["path"] as? String) == path && $0["error"] == nil }
            let messages = try entries.compactMap { $0["payload"] }.map { payload in
                try WireJSON.decode(NotificationMessage.self, from: try JSONSerialization.data(withJSONObject: payload))
            }
            if messages.count >= count || Date() > deadline { return messages }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
