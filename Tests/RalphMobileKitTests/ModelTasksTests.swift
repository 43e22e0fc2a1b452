import Testing
import TestSupport

@testable import RalphMobileKit

/// The tasks a client model starts are its own: stopping cancels them, a test can wait for them, and a model that
/// goes away takes them with it.
@Suite("Model tasks")
@MainActor
struct ModelTasksTests {
    /// A task that waits until it is cancelled, and says so.
    func waitForCancellation(_ cancelled: Locked<Bool>) -> @MainActor () async -> Void {
        {
            // The sleep ends early only by cancellation, which is what this task waits for.
            try? await Task.sleep(for: .seconds(3600))
            cancelled.withLock { $0 = Task.isCancelled }
        }
    }

    @Test("a task runs, is counted while it runs, and removes itself when it ends")
    func runsAndEnds() async {
        let tasks = ModelTasks()
        let ran = Locked(false)
        tasks.spawn { ran.withLock { $0 = true } }
        #expect(tasks.count == 1)
        await tasks.settle()
        #expect(ran.value)
        #expect(tasks.count == 0)
    }

    @Test("cancelAll cancels the running tasks; settle waits for them to end; later tasks still start")
    func cancelAllThenSpawnAgain() async {
        let tasks = ModelTasks()
        let cancelled = Locked(false)
        tasks.spawn(waitForCancellation(cancelled))
        tasks.cancelAll()
        await tasks.settle()
        #expect(cancelled.value)
        #expect(tasks.count == 0)
        let ranAgain = Locked(false)
        tasks.spawn { ranAgain.withLock { $0 = !Task.isCancelled } }
        await tasks.settle()
        #expect(ranAgain.value, "a model that stopped can start again")
    }

    @Test("tasks left running when their owner goes away are cancelled")
    func deinitCancels() async {
        let cancelled = Locked(false)
        var tasks: ModelTasks? = ModelTasks()
        let task = tasks!.spawn(waitForCancellation(cancelled))
        tasks = nil
        await task.value
        #expect(cancelled.value)
    }
}
