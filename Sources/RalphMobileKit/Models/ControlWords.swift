import Foundation
import RalphAPI

/// The words every client uses for stops, hook suspensions and pauses, so the phone, the terminal and the tests say
/// the same thing (the web dashboard mirrors them in `control.js`).
public enum ControlWords {
    /// What a stop answer means.
    public static func stopAnswer(_ answer: StopSessionResponse) -> String {
        if answer.status == "stopping" { return answer.message ?? StopSessionResponse.gracefulMessage }
        var text = "stopped"
        var details: [String] = []
        if let pid = answer.pid { details.append("pid \(pid)") }
        if let signal = answer.signal { details.append(signal) }
        if answer.terminated { details.append("ralph recorded its termination") }
        if !details.isEmpty { text += " (" + details.joined(separator: ", ") + ")" }
        return text
    }

    /// The session's stop, in words: pending while it runs, or which stop ended it. Nil while its host is offline
    /// (``HostWords/unreachable(_:)`` says that instead): what became of the stop is not known.
    public static func stop(_ session: Session) -> String? {
        guard let request = session.stopRequested, !session.isUnreachable else { return nil }
        let live = session.mode != .complete
        if request.isGraceful { return live ? StopSessionResponse.gracefulMessage : "stopped at the end of an iteration (graceful stop)" }
        return live ? "force-stopping" : "force-stopped"
    }

    /// The label of the stop button: a graceful stop first; once one is pending, a forced one.
    public static func stopButton(_ session: Session) -> String {
        session.stopRequested?.isGraceful == true && session.mode != .complete ? "Force stop" : "Stop at end of iteration"
    }

    /// Whether the next stop of this session is a forced one (a graceful stop is pending).
    public static func nextStopForces(_ session: Session) -> Bool {
        session.stopRequested?.isGraceful == true && session.mode != .complete
    }

    /// "Suspended by hook ci-gate: hook exited 2".
    public static func suspension(_ suspension: Suspension) -> String {
        "Suspended by hook \(suspension.hookName)" + (suspension.reason.map { ": \($0)" } ?? "")
    }

    /// Who holds a run that is not running freely: our pause, or a hook.
    public static func hold(_ session: Session) -> String? {
        if session.mode == .paused { return session.pausedBy == Session.pausedByServer ? "Paused by the server (SIGSTOP)" : "Paused" }
        if session.mode == .suspended, let suspension = session.suspension { return Self.suspension(suspension) }
        return nil
    }
}
