import Foundation
import RalphAPI
import RalphMobileKit

/// The run controls: pause / resume, stop after a confirmation, emit, steer, answer a RObot question. Each one checks
/// the role and the run's state first (a control that is not shown does nothing), runs one at a time, and leaves an
/// ``SessionDetailScreenModel/outcome`` to show.
extension SessionDetailScreenModel {
    /// Pauses the run (SIGSTOP); the stream stays open.
    public func pauseRun() async {
        guard modeControl.showsPause else { return }
        await run(.pause) { () async throws(RalphClientError) in
            try await self.monitor.pause()
            return "Paused" + (self.monitor.session?.pid.map { " (pid \($0))" } ?? "")
        }
    }

    /// Resumes a run: SIGCONT when the server paused it; a resume request when a hook suspended it.
    public func resumeRun() async {
        guard modeControl.showsResume else { return }
        let suspended = monitor.session?.mode == .suspended
        await run(.resume) { () async throws(RalphClientError) in
            try await self.monitor.resume()
            let pid = self.monitor.session?.pid.map { " (pid \($0))" } ?? ""
            return suspended ? "Resume requested: the suspended loop goes on" + pid : "Resumed" + pid
        }
    }

    /// Asks for the confirmation before stopping: sets ``stopConfirmation`` (admins, active runs only).
    public func requestStop() {
        guard modeControl.showsStop, let session = monitor.session else { return }
        stopConfirmation = StopConfirmation(session: session)
    }

    /// Drops the confirmation; nothing is stopped.
    public func cancelStop() { stopConfirmation = nil }

    /// Stops the run the confirmation was asked for: at the end of its iteration, or forced (SIGTERM, then SIGKILL
    /// after the server's grace period) when a graceful stop was already pending.
    public func confirmStop() async {
        guard let confirmation = stopConfirmation, confirmation.sessionID == monitor.session?.id, modeControl.showsStop else {
            stopConfirmation = nil
            return
        }
        stopConfirmation = nil
        await run(.stop) { () async throws(RalphClientError) in
            let answer = try await self.monitor.stop(force: confirmation.force)
            if answer.status == "stopping" { return "Stopping at the end of this iteration" }
            return "Stopped with \(answer.signal ?? "a signal")" + (answer.terminated ? "" : " (ralph did not write loop.terminate)")
        }
    }

    /// Sends the emit sheet's event. Returns true when it was sent (the sheet closes); false shows the problems.
    @discardableResult
    public func sendEmit() async -> Bool {
        guard actions.showsEmit else { return false }
        guard let request = emitDraft.request else {
            emitDraft.showsProblems = true
            return false
        }
        let sent = await run(.emit) { () async throws(RalphClientError) in
            let answer = try await self.monitor.emit(topic: request.topic, payload: request.payload)
            return "Emitted \(answer.topic) as event #\(ControlOutcome.eventNumber(answer.id))"
        }
        if sent { emitDraft = EmitDraft(topic: emitDraft.topic) }
        return sent
    }

    /// Sends the guidance. Returns true when it was delivered.
    @discardableResult
    public func sendSteer() async -> Bool {
        guard actions.showsSteer else { return false }
        guard steerDraft.problem == nil else {
            steerDraft.showsProblems = true
            return false
        }
        let message = steerDraft.trimmedMessage
        let urgent = steerDraft.when == .now
        let sent = await run(.steer) { () async throws(RalphClientError) in
            ControlOutcome.steerWords(try await self.monitor.steer(message, urgent: urgent))
        }
        if sent { steerDraft = SteerDraft() }
        return sent
    }

    /// Answers the pending question. Returns true when the answer was delivered.
    @discardableResult
    public func sendAnswer() async -> Bool {
        guard actions.showsAnswer, let question = monitor.detail?.pendingQuestion else { return false }
        guard answerDraft.problem == nil else {
            answerDraft.showsProblems = true
            return false
        }
        let text = answerDraft.trimmedText
        let sent = await run(.answer) { () async throws(RalphClientError) in
            do throws(RalphClientError) {
                _ = try await self.client.answer(questionID: question.id, text: text)
            } catch .notFound(_, let detail), .sessionNotFound(let detail) {
                // ralph stopped waiting (timed out, answered elsewhere): show it, and re-read the run.
                await self.monitor.refreshStatus()
                throw .conflict("ralph no longer waits for this answer (\(detail))")
            }
            await self.monitor.refreshStatus()
            return "Answer sent: ralph reads it in its next iteration"
        }
        if sent { answerDraft = AnswerDraft() }
        return sent
    }

    /// Hides the last outcome.
    public func dismissOutcome() { outcome = nil }

    /// Runs one control at a time and records what it did.
    @discardableResult
    private func run(_ action: ControlAction, _ body: () async throws(RalphClientError) -> String) async -> Bool {
        guard runningAction == nil else { return false }
        runningAction = action
        defer { runningAction = nil }
        do {
            outcome = ControlOutcome(text: try await body(), isError: false)
            return true
        } catch {
            outcome = ControlOutcome(text: Self.failure(action, error), isError: true)
            return false
        }
    }

    static func failure(_ action: ControlAction, _ error: RalphClientError) -> String {
        let what =
            switch action {
            case .pause: "Could not pause"
            case .resume: "Could not resume"
            case .stop: "Could not stop the run"
            case .emit: "The event was not emitted"
            case .steer: "The guidance was not delivered"
            case .answer: "The answer was not sent"
            }
        return "\(what): \(error.description)"
    }
}
