import Foundation
import Logging
import RalphFiles
import Synchronization
import Testing

/// A workspace config that is there but cannot be read is not silently taken for no config: the catalog says why.
@Suite("Run catalog: a workspace config that cannot be read")
struct CatalogConfigProblemTests {
    /// Warnings the catalog logs.
    final class Warnings: Sendable {
        private let messages = Mutex<[String]>([])
        var all: [String] { messages.withLock { $0 } }

        var logger: Logger {
            Logger(label: "test.catalog") { _ in Handler(warnings: self) }
        }

        struct Handler: LogHandler {
            let warnings: Warnings
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .warning
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                let error = event.metadata?["error"].map { " (\($0))" } ?? ""
                warnings.messages.withLock { $0.append("\(event.message)\(error)") }
            }
        }
    }

    @Test("a config too large to read is logged once with why, the run shows none, and a readable one is picked up")
    func unreadableConfigIsLogged() async throws {
        let tmp = TempDir()
        let file = tmp.file("p/.ralph/events-20260101-000000.jsonl", emitLine("task.start", "go") + "\n")
        let config = tmp.file("p/ralph.yml", "# " + String(repeating: "x", count: 2 << 20) + "\n")
        let warnings = Warnings()
        var configuration = RunCatalog.Configuration(roots: [tmp.path])
        configuration.livenessInterval = 0.1
        let catalog = RunCatalog(configuration: configuration, logger: warnings.logger)
        catalog.start()
        await catalog.waitUntilReady()
        defer { catalog.stop() }
        let id = RunID.make(forPath: file)
        try await waitFor(5, "the warning") { warnings.all.contains { $0.contains("config cannot be read") } }
        #expect(catalog.snapshot(id: id)?.config == nil)
        try await Task.sleep(for: .milliseconds(400))
        let logged = warnings.all.filter { $0.contains("config cannot be read") }
        #expect(logged.count == 1, "logged once, not at every liveness probe: \(logged)")
        #expect(logged.first?.contains("ralph.yml") == true)

        try Data("max_iterations: 7\n".utf8).write(to: URL(fileURLWithPath: config))
        try await waitFor(5, "the readable config") { catalog.snapshot(id: id)?.config?.maxIterations == 7 }
    }
}
