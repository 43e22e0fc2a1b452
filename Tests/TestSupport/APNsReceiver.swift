import AgentRunner
import Crypto
import Foundation
import RalphAPI

import RalphMobileServer

/// The local APNs (`Tests/Receivers/apns_receiver.py`): its process, its URL and the CA to trust, and the file it
/// records requests in (one JSON line each: `headers`, `payload`, `token`, `status`, `errors`).
public struct APNsReceiver: Sendable {
    public let process: AgentProcess
    public let url: String
    public let ca: String
    public let record: String

    /// A fresh `.p8` key, and a receiver that checks provider tokens against its public half; the credentials point
    /// the server at the receiver.
    public static func started(in tmp: TemporaryDirectory) async throws -> (receiver: APNsReceiver, credentials: APNsCredentials) {
        let key = P256.Signing.PrivateKey()
        let p8 = tmp.path + "/AuthKey_ABC123DEFG.p8"
        let publicPEM = tmp.path + "/public.pem"
        _ = FileManager.default.createFile(atPath: p8, contents: Data(key.pemRepresentation.utf8))
        _ = FileManager.default.createFile(atPath: publicPEM, contents: Data(key.publicKey.pemRepresentation.utf8))
        let receiver = try await start(in: tmp, publicKey: publicPEM)
        let credentials = APNsCredentials(
            keyFile: p8, keyID: "ABC123DEFG", teamID: "TEAM123456", topic: "com.example.RalphMobile", hostOverride: receiver.url,
            trustRootsFile: receiver.ca)
        return (receiver, credentials)
    }

    public static func start(in tmp: TemporaryDirectory, publicKey: String) async throws -> APNsReceiver {
        let record = tmp.path + "/apns.jsonl"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Receivers/apns_receiver.py").path
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = try await LocalPushReceiver.sitePath()
        let process = try AgentProcess.start(
            executable: environment["PYTHON"] ?? "python3",
            arguments: [script, publicKey, "ABC123DEFG", "TEAM123456", "com.example.RalphMobile", record], workingDirectory: "/",
            environment: environment)
        // Its first line says where it listens (read from the process's own pipe, off the async runtime's threads).
        let first: [UInt8]? = try await withTimeout(15, "the APNs receiver to listen") {
            var lines = process.lines.makeAsyncIterator()
            return await lines.next()
        }
        let text = first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        guard let match = text.firstMatch(of: /listening on (https:\/\/\S+) ca=(\S+)/) else {
            _ = await process.terminate()
            throw TestFailure("the APNs receiver did not start: '\(text)' \(process.stderrTail)")
        }
        return APNsReceiver(process: process, url: String(match.1), ca: String(match.2), record: record)
    }

    public func entries() throws -> [JSONObject] {
        guard let data = FileManager.default.contents(atPath: record) else { return [] }
        return try data.split(separator: 10).map { line in
            guard let entry = try JSONParser.parse(Array(line)).objectValue else {
                throw TestFailure("the APNs receiver recorded a line that is not an object: \(String(decoding: line, as: UTF8.self))")
            }
            return entry
        }
    }

    /// The `liveactivity` pushes to `token`, in the order they came.
    public func liveActivityPushes(to token: String) throws -> [JSONObject] {
        try entries().filter { $0["token"]?.stringValue == token && $0["headers"]?.objectValue?["apns-push-type"]?.stringValue == "liveactivity" }
    }

    public func stop() async {
        _ = await process.terminate(grace: .seconds(1))
    }
}

extension ServerConfiguration {
    /// APNs at a local receiver (``APNsReceiver/started(in:)``), with Live Activity updates unpaced so a test sees each.
    public mutating func useLocalAPNs(_ credentials: APNsCredentials) {
        notifications.apns = credentials
        notifications.liveActivityMinInterval = 0
    }
}
