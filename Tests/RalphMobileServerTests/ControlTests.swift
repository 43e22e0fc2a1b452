import Foundation
import RalphAPI
import RalphFiles
import Testing

@testable import RalphMobileServer

/// Stop, suspend and resume as ralph 2.10 knows them, through the real server with the fake-ralph double.
@Suite("Graceful stop, hook suspension, endings (fake-ralph)")
struct ControlTests {
    func stop(_ h: SteeringHarness, _ id: String, _ query: String = "") async throws -> HTTPResult {
        try await HTTP.request(h.server.base + "/api/sessions/\(id)" + query, method: .DELETE)
    }

    func detail(_ h: SteeringHarness, _ id: String) async throws -> SessionDetail {
        try await HTTP.get(h.server.base + "/api/sessions/\(id)").json(SessionDetail.self)
    }

    @Test("a graceful stop writes .ralph/stop-requested; ralph ends at its iteration boundary with its own loop.terminate")
    func gracefulStop() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.3")
        let started = try await h.startRun()
        let stream = try await h.stream(started.id)
        let answer = try await stop(h, started.id)
        #expect(answer.status == 200, "\(answer.text)")
        let stopping = try answer.json(StopSessionResponse.self)
        #expect(stopping.status == "stopping" && stopping.kind == "graceful" && stopping.signal == nil && !stopping.terminated)
        #expect(stopping.message == "stopping at the end of this iteration" && stopping.pid == started.pid)
        let pending = try await h.status(started.id)
        #expect(pending.stopRequested?.kind == "graceful", "the session says a graceful stop is pending")

        let messages = try await stream.messagesUntilClosed(timeout: 10)
        let terminate = try #require(messages.last { $0.json["topic"] as? String == "loop.terminate" })
        #expect((terminate.json["payload"] as? String)?.contains("## Reason\nstopped") == true, "ralph's own record")
        try await eventually(5, "the run to end") { try await h.status(started.id).mode == .complete }
        let ended = try await detail(h, started.id)
        #expect(ended.session.status == .stopped && ended.stopReason?.reason == "stopped" && ended.stopReason?.exitCode == 1)
        #expect(ended.session.stopRequested?.kind == "graceful", "the detail says which stop happened")
        let listed = try await HTTP.get(h.server.base + "/api/sessions").json([Session].self).first { $0.id == started.id }
        #expect(listed?.stopRequested?.kind == "graceful")
        #expect(!FileManager.default.fileExists(atPath: h.root + "/proj/.ralph/stop-requested"), "ralph consumed the request")
        #expect(try await stop(h, started.id).status == 409)
    }

    @Test("a second stop while a graceful one is pending forces it (signals the process group)")
    func secondStopForces() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 60")
        let started = try await h.startRun()
        let global = try await SSETestClient.connect(h.server.base + "/api/events")
        #expect(try await stop(h, started.id).json(StopSessionResponse.self).status == "stopping")
        let status = try await h.status(started.id)
        #expect(status.mode == .live && status.stopRequested?.kind == "graceful")
        let forced = try await stop(h, started.id).json(StopSessionResponse.self)
        #expect(forced.status == "stopped" && forced.kind == "forced" && forced.signal == "SIGTERM" && forced.terminated)
        let ended = try await detail(h, started.id)
        #expect(ended.session.mode == .complete && ended.session.stopRequested?.kind == "forced" && ended.stopReason?.reason == "interrupted")
        // The global stream announced both stops on the session, the graceful one and then the forced one.
        var kinds: [String] = []
        while kinds.last != "forced" {
            let message = try await global.nextMessage(timeout: 10)
            guard message.json["id"] as? String == started.id, let stop = message.json["stop_requested"] as? [String: Any] else { continue }
            if let kind = stop["kind"] as? String, kinds.last != kind { kinds.append(kind) }
        }
        global.cancel()
        #expect(kinds == ["graceful", "forced"])
    }

    @Test("a graceful stop reaches a worktree loop through its own .ralph; the primary loop goes on")
    func gracefulStopOfWorktreeLoop() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.1")
        let first = try await h.startRun()
        let second = try await h.startRun()
        let workspace = try await h.status(second.id).workspace
        #expect(try await stop(h, second.id).json(StopSessionResponse.self).status == "stopping")
        try await eventually(10, "the worktree loop to end") { try await h.status(second.id).mode == .complete }
        #expect(try await detail(h, second.id).stopReason?.reason == "stopped")
        #expect(!FileManager.default.fileExists(atPath: h.root + "/" + workspace + "/.ralph/stop-requested"))
        #expect(try await h.status(first.id).mode == .live, "only the worktree loop was asked to stop")
        _ = try await stop(h, first.id, "?force=true")
    }

    @Test("a graceful stop of a run this server did not start: the file needs no process of ours")
    func gracefulStopOfDiscoveredRun() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.1")
        let (foreign, id) = try await h.foreignRun()
        let answer = try await stop(h, id).json(StopSessionResponse.self)
        #expect(answer.status == "stopping" && answer.pid == Int(foreign.processIdentifier))
        foreign.waitUntilExit()
        #expect(foreign.terminationStatus == 1, "ralph's exit code for a requested stop")
        try await eventually(5, "the run to show as ended") { try await h.status(id).mode == .complete }
        let ended = try await detail(h, id)
        #expect(ended.stopReason?.reason == "stopped" && ended.session.stopRequested?.kind == "graceful")
    }

    @Test("a graceful stop of a run the server paused lets it run on to its iteration boundary")
    func gracefulStopOfPausedRun() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.1")
        let started = try await h.startRun()
        #expect(try await h.post("/api/sessions/\(started.id)/pause", "").status == 200)
        #expect(try await stop(h, started.id).json(StopSessionResponse.self).status == "stopping")
        try await eventually(10, "the run to end") { try await h.status(started.id).mode == .complete }
        #expect(try await detail(h, started.id).stopReason?.reason == "stopped")
    }

    @Test("which stop ended a run survives a server restart (kept in the state file)")
    func stopSurvivesRestart() async throws {
        let h = try await SteeringHarness.start()
        h.config("iterations: 500\npace: 0.1")
        let started = try await h.startRun()
        #expect(try await stop(h, started.id).json(StopSessionResponse.self).status == "stopping")
        try await eventually(10, "the run to end") { try await h.status(started.id).mode == .complete }
        await h.server.stop()
        let again = try await LiveServer.start(workspaces: [h.root], dataDirectory: h.data) { $0.ralphCommand = SteeringHarness.fakeRalph }
        defer { Task { await again.stop(); withExtendedLifetime(h) {} } }
        let detail = try await HTTP.get(again.base + "/api/sessions/\(started.id)").json(SessionDetail.self)
        #expect(detail.session.stopRequested?.kind == "graceful" && detail.stopReason?.reason == "stopped")
        let listed = try await HTTP.get(again.base + "/api/sessions").json([Session].self).first { $0.id == started.id }
        #expect(listed?.stopRequested?.kind == "graceful")
    }

    @Test("bad force values are refused and stop nothing")
    func badForce() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.05")
        let started = try await h.startRun()
        #expect(try await stop(h, started.id, "?force=maybe").status == 400)
        let badBody = try await HTTP.request(h.server.base + "/api/sessions/\(started.id)", method: .DELETE, body: #"{"force":"yes"}"#)
        #expect(badBody.status == 400 && badBody.text.hasPrefix(#"{"error":"invalid_body: "#))
        let status = try await h.status(started.id)
        #expect(status.mode == .live && status.stopRequested == nil)
        #expect(!FileManager.default.fileExists(atPath: h.root + "/proj/.ralph/stop-requested"))
        #expect(try await stop(h, started.id, "?force=1").json(StopSessionResponse.self).kind == "forced")
    }

    @Test("a hook suspension shows as mode suspended; our SIGSTOP pause is separate; resume writes resume-requested")
    func suspendAndResume() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 4\npace: 0.05\nsuspend_at: 2\nsuspend_hook: ci-gate\nsuspend_reason: tests failed")
        let started = try await h.startRun()
        try await eventually(10, "the loop to be suspended") { try await h.status(started.id).mode == .suspended }
        let suspended = try await h.status(started.id)
        let suspension = try #require(suspended.suspension)
        #expect(suspended.status == .suspended && suspended.pausedBy == nil)
        #expect(suspension.hookName == "ci-gate" && suspension.phase == "pre.iteration.start" && suspension.reason == "tests failed")
        #expect(suspension.suspendMode == "wait_for_resume" && suspension.since != nil && suspension.loopId?.hasPrefix("primary-") == true)

        // Our own pause on top: labelled as ours; its resume is a SIGCONT, and the hook still holds the loop.
        #expect(try await h.post("/api/sessions/\(started.id)/pause", "").status == 200)
        let paused = try await h.status(started.id)
        #expect(paused.mode == .paused && paused.pausedBy == "server" && paused.suspension != nil)
        let unpaused = try await h.post("/api/sessions/\(started.id)/resume", "")
        #expect(unpaused.status == 200)
        #expect(try unpaused.json(ControlResponse.self).status == "resumed")
        #expect(try await h.status(started.id).mode == .suspended)
        #expect(!FileManager.default.fileExists(atPath: h.root + "/proj/.ralph/resume-requested"), "a SIGCONT resume writes no file")

        let resumed = try await h.post("/api/sessions/\(started.id)/resume", "")
        #expect(resumed.status == 200, "\(resumed.text)")
        #expect(try resumed.json(ControlResponse.self).status == "resume_requested")
        try await eventually(10, "the loop to go on and complete") { try await h.status(started.id).status == .completed }
        #expect(!FileManager.default.fileExists(atPath: h.root + "/proj/.ralph/suspend-state.json"))
        #expect(!FileManager.default.fileExists(atPath: h.root + "/proj/.ralph/resume-requested"), "single use: consumed")
        #expect(try await h.status(started.id).suspension == nil)
    }

    @Test("resuming a run that is neither paused nor suspended is 409 with words")
    func resumeNeither() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.05")
        let started = try await h.startRun()
        let answer = try await h.post("/api/sessions/\(started.id)/resume", "")
        #expect(answer.status == 409 && answer.text.contains("neither paused by this server nor suspended by a hook"), "\(answer.text)")
        #expect(!FileManager.default.fileExists(atPath: h.root + "/proj/.ralph/resume-requested"))
        _ = try await stop(h, started.id, "?force=true")
    }

    @Test("a graceful stop is honoured while the loop is suspended")
    func stopWhileSuspended() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 4\npace: 0.05\nsuspend_at: 1")
        let started = try await h.startRun()
        try await eventually(10, "the loop to be suspended") { try await h.status(started.id).mode == .suspended }
        #expect(try await stop(h, started.id).json(StopSessionResponse.self).status == "stopping")
        try await eventually(10, "the run to end") { try await h.status(started.id).mode == .complete }
        let ended = try await detail(h, started.id)
        #expect(ended.stopReason?.reason == "stopped" && ended.session.status == .stopped && ended.session.suspension == nil)
        #expect(!FileManager.default.fileExists(atPath: h.root + "/proj/.ralph/suspend-state.json"))
    }

    @Test("the cancellation promise: a loop.cancel event ends the loop with reason cancelled (stopped, exit 0)")
    func cancellationPromise() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        Fixture.write("fake_ralph:\n  iterations: 500\n  pace: 0.1\nevent_loop:\n  cancellation_promise: loop.cancel\n", to: h.root + "/proj/ralph.yml")
        let started = try await h.startRun()
        #expect(try await h.post("/api/sessions/\(started.id)/emit", #"{"topic":"loop.cancel","payload":"enough"}"#).status == 200)
        try await eventually(10, "the run to end") { try await h.status(started.id).mode == .complete }
        let ended = try await detail(h, started.id)
        #expect(ended.stopReason?.reason == "cancelled" && ended.stopReason?.exitCode == 0 && ended.session.status == .stopped)
    }

    @Test("an agent stuck on one emit (the same signature 3 times in a row) ends with ralph's loop_stale: failed, exit 1")
    func loopStale() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        let hats = "hats:\n  builder:\n    name: Builder\n    triggers: [build.task]\n    publishes: [build.done]\n"
        Fixture.write("fake_ralph:\n  iterations: 50\n  pace: 0.05\n  stale_from: 2\n" + hats, to: h.root + "/proj/ralph.yml")
        let started = try await h.startRun()
        try await eventually(15, "the run to end") { try await h.status(started.id).mode == .complete }
        let ended = try await detail(h, started.id)
        #expect(ended.stopReason?.reason == "loop_stale" && ended.stopReason?.exitCode == 1, "\(String(describing: ended.stopReason))")
        #expect(ended.session.status == .failed && ended.session.iteration == 4, "iterations 2, 3 and 4 emitted the same: \(ended.session)")
    }

    @Test("a worktree loop whose worktree disappears ends with workspace_gone (exit 1) and is no longer a live loop")
    func workspaceGone() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.1")
        let first = try await h.startRun()
        let second = try await step("second start") { try await h.startRun() }
        let worktree = h.root + "/" + (try await step("status") { try await h.status(second.id).workspace })
        #expect(worktree.contains("/.worktrees/fake-"))
        try await eventually(5, "the worktree loop to have begun") { try await h.status(second.id).eventCount >= 1 }
        // The loop may be writing while the tree goes (a file it renames into place): remove until nothing is left.
        try await eventually(5, "the worktree to be removed") {
            do { try FileManager.default.removeItem(atPath: worktree) } catch { return !FileManager.default.fileExists(atPath: worktree) }
            return true
        }
        try await eventually(10, "the worktree loop to exit") { !FileManager.default.fileExists(atPath: "/proc/\(second.pid)") }
        let loops = try await step("loops") { try await HTTP.get(h.server.base + "/api/loops?workspace=proj") }
        #expect(loops.status == 200 && !loops.text.contains((worktree as NSString).lastPathComponent), "\(loops.text)")
        _ = try await step("stop") { try await stop(h, first.id, "?force=true") }
        // (Read last: the server closes the connection after a log response, and the client may reuse it.)
        let log = try await step("log") { try await HTTP.get(h.server.base + "/api/sessions/\(second.id)/log?follow=false") }
        #expect(log.text.contains("workspace_gone"), "\(log.text.suffix(300))")
    }

    func step<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw TestFailure("\(what): \(error)") }
    }
}
