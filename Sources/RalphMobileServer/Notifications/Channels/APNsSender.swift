import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOSSL
import RalphAPI
import RalphNotify
import Synchronization

/// Sends the message to the iOS app through APNs: HTTP/2, token authentication (``APNsToken``, renewed every 30
/// minutes), `apns-push-type: alert`, `apns-topic` the bundle id, `apns-collapse-id` the message's tag (so a later
/// message — a withdrawal — replaces it on the device), `apns-priority` 10 for what needs a person and 5 otherwise, and
/// an `apns-id` derived from the message id, the same for every retry.
///
/// The payload's `aps` shows the alert with the category of its actions (`RALPH_APPROVAL`: Allow / Deny;
/// `RALPH_QUESTION`: Answer with text input; `RALPH_SUSPENDED`: Resume); `ralph` carries the whole ``NotificationMessage`` (tokens included) for
/// the app to act on.
struct APNsSender: NotificationSender {
    let credentials: APNsCredentials
    let token: APNsToken
    let http: PushHTTP

    init(credentials: APNsCredentials, http: PushHTTP) throws {
        self.credentials = credentials
        let pem: String
        do {
            pem = try String(contentsOfFile: credentials.keyFile, encoding: .utf8)
        } catch {
            throw PushHTTPError(description: "cannot read the APNs key \(credentials.keyFile): \(error)")
        }
        token = try APNsToken(pem: pem, keyID: credentials.keyID, teamID: credentials.teamID)
        if let caFile = credentials.trustRootsFile {
            self.http = PushHTTP(client: Self.client(trusting: caFile), timeout: http.timeout)
        } else {
            self.http = http
        }
    }

    /// A client for a local receiver with its own certificate (tests): it trusts that, and only that, certificate
    /// authority. One per file for the life of the process, as ``PushHTTP/shared`` is: a client is shut down before it
    /// is released, and a sender does not know when the last message through it is done.
    static func client(trusting caFile: String) -> HTTPClient {
        clientsByTrustRoots.withLock { clients in
            if let client = clients[caFile] { return client }
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(caFile)
            var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
            configuration.connectionPool.retryConnectionEstablishment = false
            configuration.timeout.connect = .seconds(5)
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            clients[caFile] = client
            return client
        }
    }

    private static let clientsByTrustRoots = Mutex<[String: HTTPClient]>([:])

    func host(for environment: APNsEnvironment) -> String {
        if let override = credentials.hostOverride { return override }
        return environment == .production ? "https://api.push.apple.com" : "https://api.sandbox.push.apple.com"
    }

    func send(_ message: NotificationMessage, to device: StoredDevice, urgent: Bool) async -> DeliveryOutcome {
        guard let apns = device.registration.apns else { return .failed(status: nil, detail: "the APNs registration has no device token") }
        let body: [UInt8]
        let bearer: String
        do {
            body = Array(try WireJSON.encode(Self.payload(message)))
            bearer = try token.current()
        } catch {
            return .failed(status: nil, detail: "\(error)")
        }
        let headers = [
            ("authorization", "bearer \(bearer)"),
            ("apns-push-type", "alert"),
            ("apns-topic", credentials.topic),
            ("apns-priority", urgent && message.quiet != true ? "10" : "5"),
            ("apns-collapse-id", Self.collapseID(message.tag)),
            ("apns-id", Self.apnsID(message.id)),
            ("apns-expiration", String(Int(Date().timeIntervalSince1970) + 86_400)),
            ("content-type", "application/json"),
        ]
        return await post(token: apns.deviceToken.lowercased(), environment: apns.environment, headers: headers, body: body)
    }

    /// POSTs to `/3/device/<token>` on the environment's host, and reads APNs' answer.
    func post(token: String, environment: APNsEnvironment, headers: [(String, String)], body: [UInt8]) async -> DeliveryOutcome {
        switch await http.post(host(for: environment) + "/3/device/" + token, headers: headers, body: body) {
        case .failure(let error):
            return .retry(status: nil, detail: error.description, after: nil)
        case .success(let answer):
            return Self.outcome(status: answer.status, body: answer.body)
        }
    }

    /// APNs' answer: 200, or a status with `{"reason": …}`. `Unregistered` (410) and `BadDeviceToken` (400) mean
    /// the token is no good any more; a refused provider token is not worth retrying with the same credentials.
    static func outcome(status: Int, body: String) -> DeliveryOutcome {
        let reason = (try? JSONParser.parse(Array(body.utf8)).objectValue?["reason"]?.stringValue) ?? nil
        let detail = "APNs \(status)" + (reason.map { " \($0)" } ?? "")
        switch (status, reason) {
        case (200, _): return .delivered(status: status)
        case (410, _), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"): return .gone(status: status, detail: detail)
        case (429, _), (500..<600, _): return .retry(status: status, detail: detail, after: nil)
        default: return .failed(status: status, detail: detail)
        }
    }

    static func payload(_ message: NotificationMessage) throws -> JSONValue {
        var alert: [(String, JSONValue)] = [("title", .string(message.title))]
        if !message.body.isEmpty { alert.append(("body", .string(message.body))) }
        var aps: [(String, JSONValue)] = [
            ("alert", .object(JSONObject(alert))),
            ("thread-id", .string(message.subjectId)),
            ("interruption-level", .string(message.quiet == true || message.withdraw == true ? "passive" : message.kind.waitsForPerson ? "time-sensitive" : "active")),
        ]
        if message.quiet != true && message.withdraw != true { aps.append(("sound", .string("default"))) }
        if !message.actions.isEmpty, let category = message.kind.actionCategory { aps.append(("category", .string(category))) }
        if let count = message.count { aps.append(("badge", .int(count))) }
        let ralph = try JSONParser.parse(Array(try WireJSON.encode(message)))
        return .object(JSONObject([("aps", .object(JSONObject(aps))), ("ralph", ralph)]))
    }

    /// The tag when it fits APNs' 64 bytes, else its SHA-256 in hex.
    static func collapseID(_ tag: String) -> String {
        tag.utf8.count <= 64 ? tag : SHA256.hash(data: Data(tag.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A UUID made from the message id, so every retry of one delivery carries the same `apns-id`.
    static func apnsID(_ messageID: String) -> String {
        var bytes = Array(SHA256.hash(data: Data(messageID.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String(format: "%02X", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }
}
