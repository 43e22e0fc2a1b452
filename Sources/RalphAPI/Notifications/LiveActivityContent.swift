import Foundation

/// Builds a Live Activity's ``LiveActivityState`` from what the app already has: a session's detail (or its status
/// alone), a conversation and its waiting approvals. The app updates its activity with these while it is in the
/// foreground; the server computes the same state from the same data and sends it in `liveactivity` pushes while the
/// app is not running, so both sides agree on what the lock screen shows.
public enum LiveActivityContent {
    /// A run from its detail: phase, iteration, hat, the latest event, backpressure, and a waiting question.
    public static func state(_ detail: SessionDetail) -> LiveActivityState {
        var result = Self.state(detail.session)
        if let last = detail.recentEvents.last?.objectValue {
            result.lastEvent = last["topic"]?.stringValue
            result.lastEventAt = last["ts"]?.stringValue ?? detail.session.lastEventAt
        }
        result.backpressure = detail.backpressure.flatMap { summary($0) }
        if result.phase.isFinal {
            result.endReason = detail.stopReason?.reason ?? detail.session.status.rawValue
        } else if let question = detail.pendingQuestion {
            result.phase = .waitingForAnswer
            result.waiting = LiveActivityState.Waiting(
                what: "question", detail: shorten(question.questionText, to: 120), count: 1, until: question.timeoutAt)
        }
        return result
    }

    /// A run from its status alone (the sessions list): no last event or backpressure.
    public static func state(_ session: Session) -> LiveActivityState {
        let current = phase(session)
        return LiveActivityState(
            phase: current, iteration: session.iteration, total: session.total, hat: session.hat, lastEventAt: session.lastEventAt,
            endReason: current.isFinal ? session.status.rawValue : nil)
    }

    /// A conversation: waiting for approval while `approvals` has pending ones (the oldest named), else where its turn is.
    public static func state(_ conversation: Conversation, approvals: [Approval]) -> LiveActivityState {
        let pending = approvals.filter { $0.conversationId == conversation.id && $0.state == .pending }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        var state = LiveActivityState(phase: LiveActivityState.Phase.idle, iteration: 0, lastEventAt: conversation.lastActivityAt)
        state.lastEvent = conversation.lastMessagePreview.map { shorten($0, to: 80) }
        if let oldest = pending.first {
            state.phase = .waitingForApproval
            state.waiting = LiveActivityState.Waiting(what: oldest.displayName ?? oldest.toolName, detail: approvalDetail(oldest), count: pending.count)
            return state
        }
        switch conversation.status {
        case .running, .retrying, .stalled: state.phase = .running
        case .awaitingApproval:
            // The list says a turn waits, but the approvals were not given (or were decided meanwhile): say so without naming one.
            state.phase = .waitingForApproval
            state.waiting = LiveActivityState.Waiting(what: "approval", detail: nil, count: max(conversation.pendingApprovals, 1))
        case .idle: state.phase = .idle
        }
        return state
    }

    static func phase(_ session: Session) -> LiveActivityState.Phase {
        switch session.status {
        case .completed: return .completed
        case .failed: return .failed
        case .stopped: return .stopped
        default: break
        }
        // A hook's suspension holds the loop as our pause does: the Live Activity shows it held, not running.
        if session.mode == .paused || session.status == .paused || session.mode == .suspended { return .paused }
        if session.mode == .complete { return .stopped }
        return .running
    }

    /// The checks of the latest `build.done`/`build.blocked`, or its three booleans when it named no checks.
    static func summary(_ backpressure: Backpressure) -> LiveActivityState.BackpressureSummary? {
        var checks = backpressure.checks.map { ($0.name, $0.passed) }
        if checks.isEmpty {
            checks = [("tests", backpressure.tests), ("lint", backpressure.lint), ("typecheck", backpressure.typecheck)].compactMap { name, value in
                value.map { (name, $0) }
            }
        }
        guard !checks.isEmpty else {
            return backpressure.topic == "build.blocked"
                ? LiveActivityState.BackpressureSummary(passed: 0, failed: 0, text: "blocked", blocked: true) : nil
        }
        let passed = checks.filter { $0.1 }.count
        return LiveActivityState.BackpressureSummary(
            passed: passed, failed: checks.count - passed, text: checks.map { "\($0.0) \($0.1 ? "✓" : "✗")" }.joined(separator: " "),
            blocked: backpressure.topic == "build.blocked")
    }

    /// The command, path or description of an approval, one line.
    static func approvalDetail(_ approval: Approval) -> String? {
        let input = approval.input.objectValue
        let text = input?["command"]?.stringValue ?? input?["file_path"]?.stringValue ?? input?["path"]?.stringValue ?? approval.description
        return text.map { shorten($0, to: 120) }
    }

    /// The first line, at most `limit` characters (an ellipsis when cut).
    public static func shorten(_ text: String, to limit: Int) -> String {
        let line = text.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? ""
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return trimmed.count <= limit ? trimmed : String(trimmed.prefix(limit - 1)) + "…"
    }
}
