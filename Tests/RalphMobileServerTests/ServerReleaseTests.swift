import Foundation
import Testing

@testable import RalphMobileServer

/// A stopped server lets go of everything it holds: its parts are released, and with them the files and sockets they
/// keep open (the chat database, the workspace roots' descriptors, the catalog's wake pipe). A process that runs many
/// servers one after another — the tests, an embedding app — would otherwise keep each one's descriptors for good.
@Suite("A stopped server is released")
struct ServerReleaseTests {
    final class WeakBox: @unchecked Sendable {
        // @unchecked: written once in init, read after the server has stopped.
        weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }

    @Test("after a graceful stop, every part of the server is released and its descriptors closed")
    func partsAreReleased() async throws {
        let tmp = TemporaryDirectory()
        let data = tmp.subdirectory("data")
        var parts: [(String, WeakBox)] = []
        do {
            let live = try await LiveServer.start(workspaces: [tmp.subdirectory("root")], dataDirectory: data)
            let server = live.server
            parts = [
                ("catalog", WeakBox(server.catalog)), ("hub", WeakBox(server.hub)), ("chat", WeakBox(server.chat)),
                ("keys", WeakBox(server.keyStore)), ("run control", WeakBox(server.supervisor)), ("notifier", WeakBox(server.notifier)),
                ("live activities", WeakBox(server.liveActivities)), ("hosts", WeakBox(server.hosts)),
            ]
            #expect(try await HTTP.get(live.base + "/api/sessions").status == 200)
            #expect(Self.openFiles(under: data) > 0, "the chat database is open while the server runs")
            await live.stop()
        }
        let deadline = ContinuousClock.now + .seconds(10)
        var held = parts.filter { $0.1.object != nil }.map(\.0)
        while !held.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            held = parts.filter { $0.1.object != nil }.map(\.0)
        }
        #expect(held.isEmpty, "still held after the stop: \(held)")
        #expect(Self.openFiles(under: data) == 0, "nothing under the data directory is still open")
    }

    /// Descriptors of this process open on files under `directory`.
    static func openFiles(under directory: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0))?.hasPrefix(directory) ?? false }.count
    }
}
