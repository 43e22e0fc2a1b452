import Synchronization
import Testing

@testable import RalphMobileServer

/// The owner of a service's background tasks: nothing it started outlives its shutdown.
@Suite("Owned tasks")
struct OwnedTasksTests {
    @Test("shutdown cancels and awaits every running task, and nothing starts after it")
    func cancelAndWait() async {
        let tasks = OwnedTasks()
        let ended = Mutex(0)
        for _ in 0..<3 {
            #expect(tasks.run {
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
                ended.withLock { $0 += 1 }
            })
        }
        #expect(tasks.count == 3)
        await tasks.cancelAndWait()
        #expect(ended.withLock { $0 } == 3, "every task ended before cancelAndWait returned")
        #expect(tasks.count == 0)
        #expect(!tasks.run { Issue.record("started after shutdown") })
    }

    @Test("a finished task is forgotten")
    func finishedTasksLeave() async throws {
        let tasks = OwnedTasks()
        tasks.run {}
        for _ in 0..<200 where tasks.count > 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(tasks.count == 0)
    }
}
