import Foundation
import Logging
import RalphFiles
import ServiceLifecycle
import Testing

@Suite("Run catalog as a ServiceLifecycle service")
struct CatalogServiceTests {
    /// A catalog over `root` that writes its index only when it stops.
    func catalog(_ root: String, index: String) -> RunCatalog {
        var configuration = RunCatalog.Configuration(roots: [root])
        configuration.indexDirectory = index
        configuration.indexInterval = 3600
        configuration.pollInterval = 0.2
        return RunCatalog(configuration: configuration)
    }

    @Test("run() starts the thread and returns after graceful shutdown, with the index written")
    func gracefulShutdown() async throws {
        let tmp = TempDir()
        let index = tmp.path + "/index"
        let file = tmp.file("p/.ralph/events-20260205-100000.jsonl", (1...20).map { emitLine("t", "\($0)") }.joined(separator: "\n") + "\n")
        let id = RunID.make(forPath: file)
        let catalog = catalog(tmp.path, index: index)
        let recorder = ChangeRecorder()
        catalog.subscribe(recorder)
        let group = ServiceGroup(configuration: .init(services: [catalog], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await catalog.waitUntilReady()
            #expect(catalog.snapshot(id: id)?.state.lineCount == 20)
            appendLine(emitLine("t", "21"), to: file)
            try await waitFor(5, "the appended line") { catalog.snapshot(id: id)?.state.lineCount == 21 }
            await group.triggerGracefulShutdown()
            try await tasks.next()
        }
        #expect(recorder.all.first == .added(id, lines: 20))
        #expect(recorder.appendedIDs(id) == [21])
        // The thread is gone: a command posted now is answered at once (nothing is done).
        await catalog.synchronize()
        await catalog.catchUp(id: id)
        // The index holds the line appended while it ran: the next start reads nothing.
        let second = await startCatalog([tmp.path], indexDirectory: index)
        defer { second.stop() }
        #expect(second.startupReport()?.restoredFromIndex == 1)
        #expect(second.startupReport()?.linesRead == 0)
        #expect(second.snapshot(id: id)?.state.lineCount == 21)
    }

    @Test("cancelling the task that runs it stops the thread too")
    func cancellation() async throws {
        let tmp = TempDir()
        let file = tmp.file("p/.ralph/events-20260205-100000.jsonl", emitLine("t", "1") + "\n")
        let catalog = catalog(tmp.path, index: tmp.path + "/index")
        let task = Task { try await catalog.run() }
        await catalog.waitUntilReady()
        #expect(catalog.snapshot(id: RunID.make(forPath: file)) != nil)
        task.cancel()
        try await task.value
        // Stopped: waiting for it to finish returns at once.
        await catalog.stopAndWait()
    }
}
