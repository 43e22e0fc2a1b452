import Foundation
import NIOHTTP1
import RalphAPI

/// The local receivers of the notification tests (`Tests/Receivers/push_receiver.py`): Web Push endpoints that check
/// VAPID and decrypt with Python's `http_ece`, an ntfy server and webhooks — independent of the server's own code.
/// Typed views over ``LocalPushReceiver``, which starts it.
public final class PushReceiver: Sendable {
    public let base: String
    /// The process (started and stopped as the client tests do).
    public let local: LocalPushReceiver

    /// What the receiver recorded of one request.
    public struct Received: Sendable {
        public var channel: String
        public var path: String
        public var status: Int
        public var error: String?
        public var headers: [String: String]
        /// The decrypted (Web Push) or plain JSON body.
        public var payload: JSONValue?
        public var vapidClaims: JSONValue?
        public var at: Double

        /// The payload as the server's message type.
        public func message() throws -> NotificationMessage {
            guard let payload else { throw TestFailure("no payload: \(error ?? "?")") }
            return try WireJSON.decode(NotificationMessage.self, from: WireJSON.encode(payload))
        }
    }

    public static func start() async throws -> PushReceiver {
        PushReceiver(try await LocalPushReceiver.start())
    }

    private init(_ local: LocalPushReceiver) {
        self.local = local
        base = local.origin
    }

    /// A new Web Push subscription at this receiver, as a browser would give it.
    public func subscription() async throws -> WebPushSubscription {
        try await HTTP.request(base + "/control/subscription", method: .POST, body: "{}").json(WebPushSubscription.self)
    }

    /// A webhook URL checking `secret`.
    public func webhook(secret: String) async throws -> String { try await local.hook(secret: secret) }

    /// The statuses the next requests to `path` are answered with (then the usual 201/200).
    public func script(_ path: String, statuses: [Int]) async throws { try await local.script(path, statuses: statuses) }

    /// Everything received so far, waiting up to `timeout` seconds for at least `count` requests.
    public func received(count: Int = 0, timeout: Double = 0) async throws -> [Received] {
        let result = try await HTTP.request(base + "/control/received?count=\(count)&timeout=\(timeout)", timeout: .seconds(Int64(timeout) + 10))
        let all = try JSONParser.parse(Array(result.body))
        guard case .array(let entries) = all else { throw TestFailure("bad received list: \(result.text)") }
        return entries.compactMap { entry in
            guard let object = entry.objectValue else { return nil }
            var headers: [String: String] = [:]
            for (key, value) in object["headers"]?.objectValue?.members ?? [] { if let text = value.stringValue { headers[key] = text } }
            return Received(
                channel: object["channel"]?.stringValue ?? "", path: object["path"]?.stringValue ?? "", status: object["status"]?.intValue ?? 0,
                error: object["error"]?.stringValue, headers: headers, payload: object["payload"],
                vapidClaims: object["vapid"]?.objectValue?["claims"], at: object["at"]?.doubleValue ?? 0)
        }
    }

    /// Waits until `condition` holds for what was received (or fails after `timeout`).
    public func wait(
        _ what: String, timeout: Double = 10, until condition: @escaping @Sendable ([Received]) -> Bool
    ) async throws -> [Received] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let all = try await received()
            if condition(all) { return all }
            if Date() > deadline { throw TestFailure("timed out after \(timeout) s waiting for \(what); received: \(all.map { "\($0.channel) \($0.status) \($0.error ?? "")" })") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
