import Foundation
import RalphAPI

/// The sessions hidden on this device ("swipe to hide"), per server, kept in a small JSON file.
///
/// Hiding is local: the run stays on the server and in every other client. The file maps a server's base URL to the
/// ids hidden on it (`{"version":1,"servers":{"http://mac.local:8080":["3fa2…"]}}`), so the same id on another server
/// is not hidden by mistake. The app keeps the file in Application Support; tests use a temporary file.
public struct HiddenSessionsStore: Sendable {
    /// The JSON file.
    public let fileURL: URL
    /// The server the ids belong to (its base URL, as ``RalphClient/baseURL`` has it).
    public let server: String

    public init(fileURL: URL, server: String) {
        self.fileURL = fileURL
        self.server = server
    }

    /// What is wrong with the file.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
    }

    struct Contents: Codable {
        var version = 1
        var servers: [String: [String]] = [:]
    }

    /// The ids hidden on ``server``: empty when the file does not exist yet.
    /// - Throws: ``Failure`` when the file exists but cannot be read or is not this store's JSON.
    public func load() throws(Failure) -> Set<String> {
        Set(try read().servers[server] ?? [])
    }

    /// Replaces the ids hidden on ``server`` (those of other servers are kept). Written atomically.
    public func save(_ ids: Set<String>) throws(Failure) {
        var contents = try read()
        contents.servers[server] = ids.isEmpty ? nil : ids.sorted()
        let data: Data
        do {
            data = try WireJSON.encode(contents)
            try FileManager.default.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: fileURL, options: .atomic)
        } catch {
            throw Failure(description: "cannot save the hidden sessions to \(fileURL.path): \(error.localizedDescription)")
        }
    }

    private func read() throws(Failure) -> Contents {
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return Contents() }
        do {
            let data = try Data(contentsOf: fileURL)
            return try WireJSON.decode(Contents.self, from: data)
        } catch {
            throw Failure(description: "cannot read the hidden sessions from \(fileURL.path): \(error.localizedDescription)")
        }
    }
}
