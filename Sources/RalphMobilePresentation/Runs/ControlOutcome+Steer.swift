import RalphAPI

extension ControlOutcome {
    /// The notice after a steer, from the server's answer: acknowledged by ralph (RPC), sent without an acknowledgement
    /// yet, written to ralph's urgent-steer file, or delivered as an event for the next iteration.
    static func steerWords(_ answer: SteerResponse) -> String {
        let when = answer.appliesTo == "current" ? "this iteration" : "its next iteration"
        switch answer.status {
        case "acknowledged": return "ralph acknowledged it for \(when)" + (answer.acknowledgement.map { ": \($0)" } ?? "")
        case "sent": return "Sent to ralph for \(when); no acknowledgement yet"
        case "written": return "Written for \(when) (experimental: ralph does not acknowledge it)"
        default: return "Guidance delivered as event #\(eventNumber(answer.id)); ralph reads it in \(when)"
        }
    }
}
