import Foundation
import RalphAPI
import RalphFiles
import Testing

@testable import RalphMobileServer

#if canImport(Glibc)
import Glibc
#endif

@Suite("Steering that reaches ralph (with the fake-ralph double)")
struct SteeringTests {
    @Test("a run started through the API is streamed to its end; its output is in its log; the process is reaped")
    func startAndFollow() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 3\npace: 0.05\noutput_bytes: 2000")
        let started = try await h.startRun(prompt: "Write the docs")
        #expect(!started.pending)
        #expect(RunID.isFullID(started.id))
        let messages = try await h.stream(started.id).messagesUntilClosed(timeout: 10)
        let topics = messages.compactMap { $0.json["topic"] as? String }
        #expect(topics.first == "task.start" && topics.contains("LOOP_COMPLETE") && topics.last == "stream.end")
        #expect(messages.first?.json["payload"] as? String == "Write the docs")
        #expect(messages.last?.json["status"] as? String == "completed")
        let status = try await h.status(started.id)
        #expect(status.mode == .complete && status.status == .completed && status.workspace == "proj")

        let log = try await HTTP.get(h.server.base + started.log)
        #expect(log.status == 200 && log.text.contains("ralph: completed after 3 iterations") && log.text.contains("[iteration 2] working"))
        try await eventually(3, "the child to be reaped") { !FileManager.default.fileExists(atPath: "/proc/\(started.pid)") }
    }

    @Test("pause stops the loop (no new events, mode paused everywhere); resume continues it")
    func pauseAndResume() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.05")
        let started = try await h.startRun()
        let global = try await SSETestClient.connect(h.server.base + "/api/events")
        try await eventually(5, "a few events") { try await h.status(started.id).eventCount >= 3 }

        let paused = try await h.post("/api/sessions/\(started.id)/pause", "")
        #expect(paused.status == 200)
        #expect(try paused.json(ControlResponse.self).status == "paused")
        #expect(try await h.status(started.id).mode == .paused)
        #expect(try await HTTP.get(h.server.base + "/api/sessions").json([Session].self).first { $0.id == started.id }?.status == .paused)
        var sawPaused = false
        while !sawPaused {
            let m = try await global.nextMessage()
            sawPaused = m.json["id"] as? String == started.id && m.json["mode"] as? String == "paused"
        }
        let countWhilePaused = try await h.status(started.id).eventCount
        try await Task.sleep(for: .milliseconds(600))
        #expect(try await h.status(started.id).eventCount == countWhilePaused, "nothing happens while paused")
        #expect(try await h.post("/api/sessions/\(started.id)/pause", "").status == 409)

        let resumed = try await h.post("/api/sessions/\(started.id)/resume", "")
        #expect(resumed.status == 200)
        #expect(try resumed.json(ControlResponse.self).status == "resumed")
        try await eventually(5, "new events after resuming") { try await h.status(started.id).eventCount > countWhilePaused }
        #expect(try await h.status(started.id).mode == .live)
        #expect(try await h.post("/api/sessions/\(started.id)/resume", "").status == 409, "not paused")
    }

    @Test("steer (without RPC) delivers human.guidance that ralph takes into its next iteration; emit returns the id the stream shows")
    func steerAndEmit() async throws {
        let h = try await SteeringHarness.start { $0.ralphRPC = false }
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.1")
        let started = try await h.startRun()
        let stream = try await h.stream(started.id)

        let steer = try await h.post("/api/sessions/\(started.id)/steer", #"{"message":"use the existing HTTP client"}"#)
        #expect(steer.status == 200)
        let delivered = try steer.json(SteerResponse.self)
        #expect(delivered.status == "delivered")
        let emit = try await h.post("/api/sessions/\(started.id)/emit", #"{"topic":"deploy.requested","payload":{"env":"staging"}}"#)
        #expect(emit.status == 200)
        let emitted = try emit.json(EmitResponse.self)
        #expect(emitted.success && emitted.topic == "deploy.requested")

        var byID: [String: SSEMessage] = [:]
        var echoed: SSEMessage?
        while echoed == nil || byID[emitted.id] == nil {
            let m = try await stream.nextMessage(timeout: 5)
            if let id = m.id { byID[id] = m }
            if (m.json["payload"] as? String)?.contains("guidance: use the existing HTTP client") == true { echoed = m }
        }
        #expect(byID[delivered.id]?.json["topic"] as? String == "human.guidance")
        #expect(byID[emitted.id]?.json["payload_json"] as? [String: String] == ["env": "staging"])
        #expect(echoed!.line! > SessionEventID(delivered.id)!.line, "the loop picked the guidance up after it was written")
    }

    @Test("a question ralph asks is listed, answered, and the answer reaches ralph")
    func answerQuestion() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 4\npace: 0.05\nask: \"Postgres or SQLite?\"\nask_at: 2", robotTimeout: 30)
        let started = try await h.startRun()
        let question = Locked<PendingQuestion?>(nil)
        try await eventually(5, "the question") {
            let first = try await HTTP.get(h.server.base + "/api/robot/questions").json(RobotQuestionsResponse.self).questions.first
            question.withLock { $0 = first }
            return first != nil
        }
        let q = try #require(question.value)
        #expect(q.questionText == "Postgres or SQLite?" && q.sessionId == started.id && !q.timeoutEstimated)
        #expect(try await HTTP.get(h.server.base + "/api/sessions/\(started.id)").json(SessionDetail.self).pendingQuestion?.id == q.id)

        let answer = try await h.post("/api/robot/response", #"{"question_id":"\#(q.id)","response_text":"SQLite"}"#)
        #expect(answer.status == 200)
        #expect(try answer.json(RobotResponseAck.self).questionId == q.id)
        let messages = try await h.stream(started.id).messagesUntilClosed(timeout: 10)
        #expect(messages.contains { ($0.json["payload"] as? String)?.contains("answer: SQLite") == true })
        #expect(try await HTTP.get(h.server.base + "/api/robot/questions").json(RobotQuestionsResponse.self).questions.isEmpty)
        // Answering again: the question is no longer waiting.
        let again = try await h.post("/api/robot/response", #"{"question_id":"\#(q.id)","response_text":"SQLite"}"#)
        #expect(again.status == 404 && again.text.contains("question_not_found"))
    }

    @Test("guidance through /api/robot/guidance goes to the named run, or the only live one")
    func robotGuidance() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.1")
        let started = try await h.startRun()
        let named = try await h.post("/api/robot/guidance", #"{"session_id":"\#(started.id.prefix(6))","guidance_text":"stop refactoring"}"#)
        #expect(named.status == 200)
        #expect(try named.json(RobotGuidanceAck.self).sessionId == started.id)
        let implicit = try await h.post("/api/robot/guidance", #"{"guidance_text":"add tests"}"#)
        #expect(implicit.status == 200)
        #expect(try implicit.json(RobotGuidanceAck.self).sessionId == started.id)
        // Both lines are in the run's events (the detail's recent events would not do: the run writes ten a second,
        // so on a busy machine the first guidance can scroll out of them).
        let stream = try await h.stream(started.id)
        var guidance: [String] = []
        while guidance.count < 2 {
            let message = try await stream.nextMessage(timeout: 10)
            if message.json["topic"] as? String == "human.guidance" { guidance.append(message.json["payload"] as? String ?? "") }
        }
        stream.cancel()
        #expect(guidance == ["stop refactoring", "add tests"])
    }

    @Test("forced stop: SIGTERM, ralph writes loop.terminate, the process is gone; a second stop is refused")
    func stopRun() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.05")
        let started = try await h.startRun()
        let stream = try await h.stream(started.id)
        try await eventually(5, "a few events") { try await h.status(started.id).eventCount >= 2 }
        let stop = try await HTTP.request(h.server.base + "/api/sessions/\(started.id)?force=true", method: .DELETE)
        #expect(stop.status == 200)
        let stopped = try stop.json(StopSessionResponse.self)
        #expect(stopped.status == "stopped" && stopped.signal == "SIGTERM" && stopped.terminated && stopped.pid == started.pid)
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(started.pid)"), "exited and reaped: no zombie")
        let status = try await h.status(started.id)
        #expect(status.mode == .complete && status.status == .stopped)
        let messages = try await stream.messagesUntilClosed()
        #expect(messages.last?.event == "end")
        let terminate = try #require(messages.last { $0.json["topic"] as? String == "loop.terminate" })
        #expect((terminate.json["payload"] as? String)?.contains("interrupted") == true)

        let again = try await HTTP.request(h.server.base + "/api/sessions/\(started.id)", method: .DELETE)
        #expect(again.status == 409 && again.text.hasPrefix(#"{"error":"not_running: "#))
        for control in ["pause", "resume"] {
            #expect(try await h.post("/api/sessions/\(started.id)/\(control)", "").status == 409)
        }
        #expect(try await h.post("/api/sessions/\(started.id)/steer", #"{"message":"hi"}"#).status == 409)
    }

    @Test("a loop that ignores SIGTERM is killed after the grace period")
    func stopEscalates() async throws {
        let h = try await SteeringHarness.start { $0.stopGrace = 0.5 }
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.05\nignore_sigterm: true")
        let started = try await h.startRun()
        let stop = try await HTTP.request(h.server.base + "/api/sessions/\(started.id)", method: .DELETE, body: #"{"force": true}"#).json(StopSessionResponse.self)
        #expect(stop.signal == "SIGKILL" && !stop.terminated)
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(started.pid)"))
        let detail = try await HTTP.get(h.server.base + "/api/sessions/\(started.id)").json(SessionDetail.self)
        #expect(detail.stopReason?.reason == "exited")
    }

    @Test("a paused run stays paused across a server restart; a run that died while paused says so on resume")
    func pauseSurvivesRestart() async throws {
        let h = try await SteeringHarness.start()
        h.config("iterations: 500\npace: 0.05")
        let started = try await h.startRun()
        #expect(try await h.post("/api/sessions/\(started.id)/pause", "").status == 200)
        await h.server.stop()

        let again = try await LiveServer.start(workspaces: [h.root], dataDirectory: h.data) { $0.ralphCommand = SteeringHarness.fakeRalph }
        defer { Task { await again.stop(); withExtendedLifetime(h) {} } }
        try await eventually(5, "the run to show as paused") {
            try await HTTP.get(again.base + "/api/sessions/\(started.id)/status").json(Session.self).mode == .paused
        }
        #expect(try await HTTP.request(again.base + "/api/sessions/\(started.id)/resume", method: .POST).status == 200)
        try await eventually(5, "it to run again") { try await HTTP.get(again.base + "/api/sessions/\(started.id)/status").json(Session.self).mode == .live }

        // Pause, then the process dies (killed from outside): resuming says what happened.
        #expect(try await HTTP.request(again.base + "/api/sessions/\(started.id)/pause", method: .POST).status == 200)
        kill(-pid_t(started.pid), SIGKILL)
        try await eventually(5, "the process to be gone") { !FileManager.default.fileExists(atPath: "/proc/\(started.pid)") || (try? String(contentsOfFile: "/proc/\(started.pid)/stat", encoding: .utf8))?.contains(") Z") == true }
        let resume = try await HTTP.request(again.base + "/api/sessions/\(started.id)/resume", method: .POST)
        #expect(resume.status == 409)
        #expect(resume.text.contains("ended while it was paused"))
    }

    @Test("a flood of output (10 MB) does not hang the run")
    func outputFlood() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 5\npace: 0.01\noutput_bytes: 2100000")
        let started = try await h.startRun()
        let messages = try await h.stream(started.id).messagesUntilClosed(timeout: 20)
        #expect(messages.last?.json["status"] as? String == "completed")
        // Followed to its end: in RPC mode the output comes through the server, a little after the events file.
        let log = try await HTTP.get(h.server.base + started.log)
        #expect(log.body.count >= 10_000_000)
        let tail = try await HTTP.get(h.server.base + started.log + "?follow=false&offset=\(log.body.count - 40)")
        #expect(tail.text.hasSuffix("ralph: completed after 5 iterations\n"))
    }

    @Test("a run whose events file comes late gets a pending id that every route accepts and that resolves")
    func pendingRun() async throws {
        let h = try await SteeringHarness.start { $0.startTimeout = 0.2 }
        defer { h.stop() }
        // Long enough that the run file is still missing while the routes are checked, even on a loaded machine.
        h.config("iterations: 3\npace: 0.05\nstart_delay: 6")
        let started = try await h.startRun()
        #expect(started.pending)
        let status = try await h.status(started.id)
        #expect(status.id == started.id && status.status == .starting && status.mode == .live && status.pid == started.pid)
        #expect(try await HTTP.get(h.server.base + "/api/sessions").json([Session].self).first?.id == started.id)
        #expect(try await h.post("/api/sessions/\(started.id)/steer", #"{"message":"x"}"#).status == 409)
        // The stream waits for the run, then streams it.
        let messages = try await h.stream(started.id).messagesUntilClosed(timeout: 20)
        #expect(messages.first?.json["topic"] as? String == "task.start")
        #expect(messages.last?.json["status"] as? String == "completed")
        let resolved = try await h.status(started.id)
        #expect(resolved.id != started.id && RunID.isFullID(resolved.id) && resolved.status == .completed)
    }

    @Test("a run that ends before the catalog notices its file is found, not reported as never started")
    func runFasterThanTheCatalog() async throws {
        // No inotify and slow rescans: only a look at the disk when ralph exits can find the run.
        let h = try await SteeringHarness.start {
            $0.useInotify = false
            $0.pollInterval = 30
            $0.rescanInterval = 30
        }
        defer { h.stop() }
        h.config("iterations: 1\npace: 0.01")
        let started = try await h.startRun()
        #expect(!started.pending)
        let status = try await h.status(started.id)
        #expect(status.status == .completed && status.mode == .complete)
        let messages = try await h.stream(started.id).messagesUntilClosed(timeout: 10)
        #expect(messages.first?.json["topic"] as? String == "task.start")
        #expect(messages.last?.json["status"] as? String == "completed")
    }

    @Test("a stale current-events pointer from an earlier run does not fool the start")
    func stalePointer() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 2\npace: 0.3")
        let old = Fixture.run(in: h.root + "/proj", name: "events-20200101-000000.jsonl", lines: [Fixture.emit("task.start", "old")])
        Fixture.write(".ralph/events-20200101-000000.jsonl", to: h.root + "/proj/.ralph/current-events")
        let started = try await h.startRun(prompt: "new one")
        #expect(started.id != Fixture.id(old))
        // The start answers once the run file exists; its first record (task.start) may follow a moment later.
        try await eventually(5, "the new run's task") { try await h.status(started.id).taskName == "new one" }
    }

    @Test("the log streams ralph's output as it comes and ends when ralph exits")
    func followLog() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 6\npace: 0.15\noutput_bytes: 100")
        let started = try await h.startRun()
        let log = try await SSETestClient.connect(h.server.base + started.log)
        #expect(log.status == 200 && log.headers["content-type"].first == "text/plain; charset=utf-8")
        // The body arrives in pieces while the run goes on, and the response ends with the process.
        #expect(try await log.messagesUntilClosed(timeout: 10).isEmpty)
        let text = String(decoding: log.raw.value, as: UTF8.self)
        #expect(text.contains("[iteration 1] working") && text.hasSuffix("ralph: completed after 6 iterations\n"))
        let offset = try await HTTP.get(h.server.base + started.log + "?offset=-1")
        #expect(offset.status == 400)
    }

    @Test("a second run in a busy workspace runs in a worktree, and the start answers with that run")
    func secondRunGoesToWorktree() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.1")
        let first = try await h.startRun()
        let second = try await h.startRun()
        #expect(first.id != second.id)
        let status = try await h.status(second.id)
        #expect(status.workspace.hasPrefix("proj/.worktrees/fake-") && status.mode == .live && status.pid == second.pid)
        #expect(try await h.status(first.id).pid == first.pid)
        for id in [first.id, second.id] { #expect(try await HTTP.request(h.server.base + "/api/sessions/\(id)?force=true", method: .DELETE).status == 200) }
    }

    @Test("a run this server did not start can be stopped too (its loop.lock holder)")
    func stopForeignRun() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.05")
        let (foreign, id) = try await h.foreignRun()
        let stop = try await HTTP.request(h.server.base + "/api/sessions/\(id)?force=true", method: .DELETE)
        #expect(stop.status == 200)
        #expect(try stop.json(StopSessionResponse.self).pid == Int(foreign.processIdentifier))
        foreign.waitUntilExit()
        #expect(foreign.terminationStatus == 130)
        #expect(try await HTTP.get(h.server.base + "/api/sessions/\(id)/log").status == 404, "no log: not started here")
    }
}
