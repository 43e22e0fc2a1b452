import Foundation
import RalphAPI
import RalphMobileKit
import RalphMobilePresentation
import Testing
import TestSupport

@Suite("Run controls: drafts and confirmation")
struct RunsDraftTests {
    @Test("the emit topic: required, at most 128, only letters, digits, . _ -; surrounding spaces dropped")
    func topic() {
        #expect(EmitDraft().topicProblem == "Enter a topic, e.g. build.task.")
        #expect(EmitDraft(topic: "  ").topicProblem == "Enter a topic, e.g. build.task.")
        #expect(EmitDraft(topic: "build task").topicProblem?.hasPrefix("Only letters, digits") == true)
        #expect(EmitDraft(topic: "build/task").topicProblem != nil)
        #expect(EmitDraft(topic: String(repeating: "a", count: 129)).topicProblem == "A topic has at most 128 characters (this one has 129).")
        #expect(EmitDraft(topic: String(repeating: "a", count: 128)).topicProblem == nil)
        #expect(EmitDraft(topic: " build.task-2_x ").topicProblem == nil)
        #expect(EmitDraft(topic: " build.task ").request?.topic == "build.task")
    }

    @Test("the emit payload: none, text or JSON; JSON that does not parse blocks sending; the hint says which")
    func payload() {
        #expect(EmitDraft(topic: "t").request == EmitRequest(topic: "t", payload: nil))
        #expect(EmitDraft(topic: "t").payloadHint == "No payload")
        #expect(EmitDraft(topic: "t", payload: "tests: pass").request?.payload == .string("tests: pass"))
        #expect(EmitDraft(topic: "t", payload: "tests: pass").payloadHint == "Sent as text")
        #expect(EmitDraft(topic: "t", payload: #"{"a": 1}"#).request?.payload == .object(JSONObject([("a", .int(1))])))
        #expect(EmitDraft(topic: "t", payload: #"{"a": 1}"#).payloadHint == "Sent as JSON")
        let broken = EmitDraft(topic: "t", payload: #"{"a": "#)
        #expect(broken.request == nil)
        #expect(broken.payloadProblem?.hasPrefix("This looks like JSON but does not parse") == true)
        #expect(broken.payloadProblem?.hasSuffix(".") == true)
        #expect(broken.payloadHint == "Starts like JSON but does not parse")
        #expect(broken.payloadFooter.hasPrefix("Starts like JSON but does not parse. Starting with { or ["))
        #expect(EmitDraft(topic: "bad topic", payload: "x").request == nil)
    }

    @Test("steer and answer need text; whitespace is not text")
    func steerAndAnswer() {
        #expect(SteerDraft().problem == "Write the guidance first.")
        #expect(SteerDraft(message: " \n ").problem != nil)
        #expect(SteerDraft(message: "  Focus on tests ").problem == nil)
        #expect(SteerDraft(message: "  Focus on tests ").trimmedMessage == "Focus on tests")
        #expect(AnswerDraft().problem == "Write an answer first.")
        #expect(AnswerDraft(text: " yes ").trimmedText == "yes")
    }

    @Test("the stop confirmation names the run and its iteration, says what happens, and is destructive")
    func stopConfirmation() {
        let c = StopConfirmation(session: SessionsFixtures.liveSession)
        #expect(c.title == "Stop this run?" && !c.force)
        #expect(c.message.hasPrefix("“Add a --json flag to the export command, with tests” is at iteration 7 / 20. ralph finishes this iteration"))
        #expect(c.message.hasSuffix("The run cannot be resumed."))
        #expect(c.confirmLabel == "Stop at end of iteration" && c.cancelLabel == "Cancel" && c.isDestructive)
        var pending = SessionsFixtures.liveSession
        pending.stopRequested = StopRequest(kind: StopRequest.graceful, at: "2026-02-05T08:09:13.890Z")
        let forced = StopConfirmation(session: pending)
        #expect(forced.force && forced.title == "Force-stop this run?" && forced.confirmLabel == "Force stop" && forced.message.contains("SIGTERM"))
        #expect(StopConfirmation(session: SessionsFixtures.sessions[3]).message.hasPrefix("Run 0badc0de is at iteration 20 / 20."))
    }

    @Test("a control's button says what it does, and what it is doing while it runs")
    func titles() {
        #expect(ControlAction.pause.title(running: nil) == "Pause")
        #expect(ControlAction.pause.title(running: .pause) == "Pausing…")
        #expect(ControlAction.pause.title(running: .stop) == "Pause")
        #expect(ControlAction.allCases.map { $0.title(running: $0) } == ["Pausing…", "Resuming…", "Stopping…", "Emitting…", "Sending…", "Sending…"])
    }
}

@Suite("Run controls against the real server")
@MainActor
struct RunsControlsTests {
    func model(_ h: SessionsHarness, _ id: String, role: Role, client: RalphClient? = nil) -> SessionDetailScreenModel {
        let model = SessionDetailScreenModel(client: client ?? h.client(role), sessionID: id, capabilities: Capabilities(role: role))
        model.monitor.policy = SessionsHarness.fastPolicy
        return model
    }

    @Test("an operator pauses and resumes; the buttons follow the mode; stopping is not offered to them")
    func pauseResume() async throws {
        let h = try await SessionsHarness.start()
        let id = try await h.startFakeRalph("iterations: 1000\npace: 0.3")
        let m = model(h, id, role: .operator)
        await m.start()
        #expect(m.modeControl.showsPause && !m.modeControl.showsResume && !m.modeControl.showsStop)
        await m.pauseRun()
        #expect(m.outcome?.isError == false)
        #expect(m.outcome?.text.hasPrefix("Paused (pid ") == true)
        #expect(m.session?.mode == .paused)
        #expect(!m.modeControl.showsPause && m.modeControl.showsResume)
        #expect(m.runningAction == nil)
        await m.resumeRun()
        #expect(m.outcome?.text.hasPrefix("Resumed") == true)
        #expect(m.session?.mode == .live)
        m.requestStop()
        #expect(m.stopConfirmation == nil, "operators cannot stop")
        m.suspend()
        _ = try await h.admin.stop(id)
        await h.stop()
    }

    @Test("a viewer's controls do nothing: no request is sent, the run goes on")
    func viewerCannot() async throws {
        let h = try await SessionsHarness.start()
        let id = try await h.startFakeRalph("iterations: 1000\npace: 0.3")
        let m = model(h, id, role: .viewer)
        await m.start()
        await m.pauseRun()
        m.emitDraft = EmitDraft(topic: "viewer.note")
        #expect(await m.sendEmit() == false)
        m.steerDraft = SteerDraft(message: "go")
        #expect(await m.sendSteer() == false)
        #expect(m.outcome == nil)
        #expect(try await h.admin.status(id).mode == .live)
        #expect(m.monitor.events.allSatisfy { $0.topic != "viewer.note" })
        m.suspend()
        _ = try await h.admin.stop(id)
        await h.stop()
    }

    @Test("a refusal reaches the screen as an error (a key whose role changed since the screen was built)")
    func refusalIsAnError() async throws {
        let h = try await SessionsHarness.start()
        let id = try await h.startFakeRalph("iterations: 1000\npace: 0.3")
        let m = model(h, id, role: .admin, client: h.viewer)
        await m.start()
        await m.pauseRun()
        #expect(m.outcome?.isError == true)
        #expect(m.outcome?.text.hasPrefix("Could not pause: not allowed") == true)
        #expect(try await h.admin.status(id).mode == .live)
        m.suspend()
        _ = try await h.admin.stop(id)
        await h.stop()
    }

    @Test("stop needs the confirmation; it stops at the end of the iteration; once pending, the button forces (SIGTERM)")
    func stopWithConfirmation() async throws {
        let h = try await SessionsHarness.start()
        let id = try await h.startFakeRalph("iterations: 1000\npace: 60")
        let m = model(h, id, role: .admin)
        await m.start()
        await m.confirmStop()
        #expect(m.outcome == nil, "nothing happens without a confirmation asked first")
        m.requestStop()
        #expect(m.stopConfirmation?.sessionID == id)
        m.cancelStop()
        #expect(m.stopConfirmation == nil)
        #expect(try await h.admin.status(id).mode == .live)
        #expect(m.modeControl.stopLabel == "Stop at end of iteration" && !m.modeControl.stopForces)
        m.requestStop()
        #expect(m.stopConfirmation?.force == false)
        await m.confirmStop()
        #expect(m.stopConfirmation == nil)
        #expect(m.outcome == ControlOutcome(text: "Stopping at the end of this iteration", isError: false))
        #expect(m.modeControl.stopLabel == "Force stop" && m.modeControl.stopLine == "stopping at the end of this iteration")
        m.requestStop()
        #expect(m.stopConfirmation?.force == true)
        await m.confirmStop()
        #expect(m.outcome == ControlOutcome(text: "Stopped with SIGTERM", isError: false))
        try await SessionsHarness.until(10, "the end of the run") { m.monitor.end != nil }
        #expect(!m.modeControl.showsStop && !m.actions.showsEmit)
        #expect(m.monitor.events.first?.topic == "loop.terminate")
        await h.stop()
    }

    @Test("a hook suspension: the section says who holds the run, Resume asks the loop to go on, and it completes")
    func suspendedRun() async throws {
        let h = try await SessionsHarness.start()
        let id = try await h.startFakeRalph("iterations: 3\npace: 0.05\nsuspend_at: 2\nsuspend_hook: ci-gate\nsuspend_reason: tests failed")
        let m = model(h, id, role: .operator)
        await m.start()
        try await SessionsHarness.until(10, "the suspension to show") { m.monitor.session?.mode == .suspended }
        #expect(m.modeControl.holdLine == "Suspended by hook ci-gate: tests failed")
        #expect(m.modeControl.showsResume && !m.modeControl.showsPause && m.modeControl.mode.text == "suspended")
        #expect(m.actions.showsSteer, "a suspended run still takes guidance")
        await m.resumeRun()
        #expect(m.outcome?.text.hasPrefix("Resume requested: the suspended loop goes on") == true, "\(String(describing: m.outcome))")
        try await SessionsHarness.until(10, "the run to complete") { m.monitor.end != nil }
        #expect(try await h.admin.status(id).status == .completed)
        m.suspend()
        await h.stop()
    }

    @Test("emit: a bad draft shows its problems and sends nothing; a good one arrives on the stream as JSON")
    func emit() async throws {
        let h = try await SessionsHarness.start()
        let (writer, id) = try await h.writeRun()
        let m = model(h, id, role: .operator)
        await m.start()
        try await SessionsHarness.until(10, "live") { m.monitor.connection == .connected }
        m.emitDraft = EmitDraft(topic: "build task", payload: #"{"n": "#)
        #expect(await m.sendEmit() == false)
        #expect(m.emitDraft.showsProblems && m.emitDraft.topicProblem != nil && m.emitDraft.payloadProblem != nil)
        #expect(m.outcome == nil)
        m.emitDraft = EmitDraft(topic: "build.task", payload: #"{"task": "tests first", "n": 2}"#)
        #expect(await m.sendEmit())
        #expect(m.outcome?.text == "Emitted build.task as event #2")
        #expect(m.emitDraft == EmitDraft(topic: "build.task"), "the payload is cleared, the topic kept")
        try await SessionsHarness.until(10, "the event") { m.monitor.events.first?.topic == "build.task" }
        let event = try #require(m.monitor.events.first)
        // Sent as JSON, not as a string (the server's body decoding does not keep key order, so compare by key).
        let object = try #require(event.payloadJSON?.objectValue)
        #expect(object.count == 2 && object["task"] == .string("tests first") && object["n"] == .int(2))
        let shown = try #require(m.eventStream().rows.first?.payload)
        #expect(shown.hasPrefix("{\n  \"") && shown.contains("\n  \"task\": \"tests first\"") && shown.contains("\n  \"n\": 2"))
        m.suspend()
        writer.releaseLock()
        await h.stop()
    }

    @Test("steer: empty guidance is refused here; guidance is delivered as human.guidance and ralph echoes it")
    func steer() async throws {
        let h = try await SessionsHarness.start()
        let id = try await h.startFakeRalph("iterations: 1000\npace: 0.3")
        let m = model(h, id, role: .operator)
        await m.start()
        #expect(await m.sendSteer() == false)
        #expect(m.steerDraft.showsProblems && m.steerDraft.problem != nil)
        m.steerDraft = SteerDraft(message: "  Focus on the failing test  ")
        #expect(await m.sendSteer())
        // The run was started by the server in ralph's RPC mode: ralph acknowledges the guidance.
        #expect(m.outcome?.text == "ralph acknowledged it for its next iteration: Focus on the failing test")
        #expect(m.steerDraft == SteerDraft())
        m.steerDraft = SteerDraft(message: "Check the failing test first", when: .now)
        #expect(await m.sendSteer())
        #expect(m.outcome?.text == "ralph acknowledged it for this iteration: Check the failing test first")
        try await SessionsHarness.until(10, "live cost and the steer's acknowledgement in the detail") {
            m.rpcLive?.stats.first?.label == "Cost" && m.rpcLive?.lastAck?.hasPrefix("acknowledged for this iteration") == true
        }
        try await SessionsHarness.until(10, "the guidance and ralph's echo") {
            m.monitor.events.contains { $0.topic == "human.guidance" && $0.payload == "Focus on the failing test" }
                && m.monitor.events.contains { $0.payload?.contains("guidance: Focus on the failing test") == true }
        }
        m.suspend()
        _ = try await h.admin.stop(id)
        await h.stop()
    }

    @Test("answering a RObot question: the card shows, the answer reaches ralph, the card goes; a gone question is an error")
    func answerQuestion() async throws {
        let h = try await SessionsHarness.start()
        let id = try await h.startFakeRalph("iterations: 1000\npace: 0.2\nask: \"Which database?\"\nask_at: 1")
        let m = model(h, id, role: .operator)
        await m.start()
        try await SessionsHarness.until(10, "ralph to ask") { m.monitor.events.contains { $0.topic == "human.interact" } }
        await m.refresh()
        let card = try #require(m.question())
        #expect(card.text == "Which database?" && card.canAnswer)
        #expect(m.actions.showsAnswer)
        // A second screen that saw the question, then went to the background.
        let stale = model(h, id, role: .operator)
        await stale.start()
        #expect(stale.question()?.questionID == card.questionID)
        stale.suspend()

        #expect(await m.sendAnswer() == false, "an empty answer is not sent")
        #expect(m.answerDraft.showsProblems)
        m.answerDraft = AnswerDraft(text: "Postgres")
        #expect(await m.sendAnswer())
        #expect(m.outcome?.text == "Answer sent: ralph reads it in its next iteration")
        #expect(m.question() == nil, "no question pending any more")
        #expect(m.answerDraft == AnswerDraft())
        try await SessionsHarness.until(10, "ralph's use of the answer") { m.monitor.events.contains { $0.payload?.contains("answer: Postgres") == true } }

        // The stale screen answers a question ralph no longer waits for: an error, and it re-reads the run.
        stale.answerDraft = AnswerDraft(text: "MySQL")
        #expect(await stale.sendAnswer() == false)
        #expect(stale.outcome?.isError == true)
        #expect(stale.outcome?.text.hasPrefix("The answer was not sent: conflict: ralph no longer waits for this answer") == true)
        #expect(stale.question() == nil, "re-read: the question is gone")
        m.suspend()
        _ = try await h.admin.stop(id)
        await h.stop()
    }
}
