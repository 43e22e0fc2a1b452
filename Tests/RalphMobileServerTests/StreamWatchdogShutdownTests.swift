import Testing
import TestSupport

@testable import RalphMobileServer

/// The delayed closes ``StreamWatchdog/Watch/closeIfStuck(after:)`` starts at shutdown belong to the watchdog: its
/// ``StreamWatchdog/shutdown()`` ends their grace and waits for them, so none outlives the server.
@Suite("Stream watchdog: the closes it delays at shutdown are its own")
struct StreamWatchdogShutdownTests {
    @Test("shutting down ends a pending close's grace: a stream still writing is closed at once, an idle one is not")
    func shutdownDecidesAtOnce() async {
        let watchdog = StreamWatchdog()
        let closed = Locked<[String]>([])
        let (_, stuck) = watchdog.register { closed.withLock { $0.append("stuck") } }
        let (_, idle) = watchdog.register { closed.withLock { $0.append("idle") } }
        let blocked = Task { await stuck.writing { try? await Task.sleep(for: .seconds(30)) } }
        try? await Task.sleep(for: .milliseconds(50))
        stuck.closeIfStuck(after: .seconds(60))
        idle.closeIfStuck(after: .seconds(60))
        #expect(watchdog.pendingCloses == 2)
        let started = ContinuousClock.now
        await watchdog.shutdown()
        #expect(ContinuousClock.now - started < .seconds(10), "the grace was cut short, not waited out")
        #expect(watchdog.pendingCloses == 0)
        #expect(closed.value == ["stuck"])
        blocked.cancel()
    }

    @Test("after shutdown, a close is decided at once instead of being left to a task nobody owns")
    func afterShutdown() async {
        let watchdog = StreamWatchdog()
        await watchdog.shutdown()
        let closed = Locked<Int>(0)
        let (_, stuck) = watchdog.register { closed.withLock { $0 += 1 } }
        let blocked = Task { await stuck.writing { try? await Task.sleep(for: .seconds(30)) } }
        try? await Task.sleep(for: .milliseconds(50))
        stuck.closeIfStuck(after: .seconds(60))
        #expect(watchdog.pendingCloses == 0)
        #expect(closed.value == 1)
        blocked.cancel()
    }
}
