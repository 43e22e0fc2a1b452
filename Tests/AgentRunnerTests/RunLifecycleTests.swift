import Testing

@testable import AgentRunner

/// The run-control value machine: matching a start to its run, exits, pauses — pure events in, actions out.
@Suite("Run lifecycle (value machine)")
struct RunLifecycleTests {
    static let workspace = "/w/proj"

    static func run(_ pendingID: String = "p1", pid: Int = 100) -> RunSupervisor.StartedRun {
        RunSupervisor.StartedRun(
            pendingID: pendingID, runID: nil, pid: pid, startTicks: 7, workingDirectory: workspace, root: "/w", log: "/d/runs/\(pendingID).log",
            startedAt: "2026-01-01T10:00:00Z", arguments: ["run"], exit: nil
        )
    }

    static func seen(_ id: String, workspace: String = workspace, current: Bool = true, lock: Int? = 100) -> RunSighting {
        RunSighting(id: id, workspace: workspace, isCurrent: current, lockPID: lock)
    }

    @Test("a start is pending until a new current run whose lock the child holds appears; then it resolves and is persisted")
    func matchesByLockHolder() {
        var m = RunLifecycle()
        let first = m.handle(.started(Self.run(), before: ["old"], runs: [Self.seen("old")]))
        #expect(first == [.persist, .scheduleWeakEvidence(pendingID: "p1", after: RunLifecycle.weakEvidenceDelay)])
        #expect(m.handle(.runSeen(Self.seen("other", lock: 999))) == [], "another process's lock is no evidence")
        #expect(m.handle(.runSeen(Self.seen("elsewhere", workspace: "/w/else"))) == [], "another workspace")
        let version = m.version
        #expect(m.handle(.runSeen(Self.seen("new"))) == [.persist, .resolved(pendingID: "p1", runID: "new")])
        #expect(m.started["p1"]?.runID == "new" && m.version == version + 1 && !m.isMatchingAny)
        #expect(m.handle(.runSeen(Self.seen("newer"))) == [], "resolved once")
    }

    @Test("runs that existed before the start never match, even when current and locked by the child")
    func beforeIsIgnored() {
        var m = RunLifecycle()
        _ = m.handle(.started(Self.run(), before: ["old"], runs: []))
        #expect(m.handle(.runSeen(Self.seen("old"))) == [])
        #expect(m.isMatchingAny)
    }

    @Test("a run already in the catalog when the start registers resolves it at once; worktree runs count")
    func matchesWhatIsThere() {
        var m = RunLifecycle()
        let actions = m.handle(.started(Self.run(), before: [], runs: [Self.seen("wt", workspace: Self.workspace + "/.worktrees/a")]))
        #expect(actions.contains(.resolved(pendingID: "p1", runID: "wt")))
    }

    @Test("without the lock evidence, the only new current run is accepted once the weak-evidence delay passed")
    func weakEvidence() {
        var m = RunLifecycle()
        _ = m.handle(.started(Self.run(), before: [], runs: []))
        #expect(m.handle(.runSeen(Self.seen("new", lock: nil))) == [])
        #expect(m.handle(.weakEvidenceDue(pendingID: "p1")) == [.persist, .resolved(pendingID: "p1", runID: "new")])

        var two = RunLifecycle()
        _ = two.handle(.started(Self.run(), before: [], runs: [Self.seen("a", lock: nil), Self.seen("b", lock: nil)]))
        #expect(two.handle(.weakEvidenceDue(pendingID: "p1")) == [], "two candidates: no guess")
    }

    @Test("a child that exits makes the catalog read the disk; then the only new run matches, or the start ends without one")
    func exitThenCatchUp() {
        var m = RunLifecycle()
        _ = m.handle(.started(Self.run(), before: [], runs: []))
        #expect(m.handle(.childExited(pendingID: "p1", .exited(0))) == [.persist, .synchronizeCatalog(pendingID: "p1")])
        #expect(m.started["p1"]?.exit == "exit code 0")
        _ = m.handle(.runSeen(Self.seen("short", current: false, lock: nil)))
        #expect(
            m.handle(.caughtUpAfterExit(pendingID: "p1")) == [.persist, .resolved(pendingID: "p1", runID: "short"), .catchUp(runID: "short")]
        )

        var failed = RunLifecycle()
        _ = failed.handle(.started(Self.run(), before: [], runs: []))
        _ = failed.handle(.childExited(pendingID: "p1", .exited(2)))
        #expect(failed.handle(.caughtUpAfterExit(pendingID: "p1")) == [.endedWithoutRun(pendingID: "p1", exit: .exited(2))])
        #expect(!failed.isMatchingAny && failed.started["p1"]?.runID == nil)
    }

    @Test("the exit of a matched run is persisted and makes the catalog look at the run")
    func exitAfterMatch() {
        var m = RunLifecycle()
        _ = m.handle(.started(Self.run(), before: [], runs: [Self.seen("r")]))
        #expect(m.handle(.childExited(pendingID: "p1", .signaled(15))) == [.persist, .catchUp(runID: "r")])
        #expect(m.persisted.started.first?.exit == "signal SIGTERM")
    }

    @Test("a removed run is no candidate any more")
    func removed() {
        var m = RunLifecycle()
        _ = m.handle(.started(Self.run(), before: [], runs: [Self.seen("gone", lock: nil)]))
        _ = m.handle(.runRemoved(id: "gone"))
        _ = m.handle(.childExited(pendingID: "p1", .exited(1)))
        #expect(m.handle(.caughtUpAfterExit(pendingID: "p1")) == [.endedWithoutRun(pendingID: "p1", exit: .exited(1))])
    }

    @Test("pause and unpause are persisted and announced once; a restart re-announces a run still stopped")
    func pauses() {
        var m = RunLifecycle()
        let paused = RunSupervisor.PausedRun(id: "r", pid: 5, startTicks: 9, pausedAt: "2026-01-01T10:00:00Z")
        #expect(m.handle(.paused(paused)) == [.persist, .pauseChanged(id: "r", paused: true)])
        #expect(m.persisted.paused == [paused])
        #expect(m.handle(.unpaused(id: "r")) == [.persist, .pauseChanged(id: "r", paused: false)])
        #expect(m.handle(.unpaused(id: "r")) == [], "not paused: nothing to do")

        var restored = RunLifecycle(restoring: RunSupervisor.Persisted(started: [], paused: [paused]))
        #expect(!restored.isPaused("r"), "not shown paused before the restart confirmed it")
        #expect(restored.handle(.stillPaused(id: "r")) == [.pauseChanged(id: "r", paused: true)])
        #expect(restored.isPaused("r"))
        #expect(restored.handle(.stillPaused(id: "r")) == [], "confirmed once")
        #expect(restored.handle(.stillPaused(id: "x")) == [])
    }

    @Test("the state file keeps the newest 200 started runs")
    func keptRuns() {
        var m = RunLifecycle()
        for i in 0..<210 {
            var run = Self.run("p\(i)")
            run.startedAt = String(format: "2026-01-01T10:%02d:%02dZ", i / 60, i % 60)
            _ = m.handle(.started(run, before: [], runs: []))
        }
        #expect(m.persisted.started.count == RunLifecycle.keptRuns)
        #expect(m.persisted.started.first?.pendingID == "p209" && !m.persisted.started.contains { $0.pendingID == "p0" })
    }
}
