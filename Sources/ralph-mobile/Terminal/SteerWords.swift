import RalphAPI

/// What `ralph-mobile steer` prints for the server's answer.
enum SteerWords {
    static func line(_ answer: SteerResponse) -> String {
        let when = answer.appliesTo == "current" ? "this iteration" : "the next iteration"
        switch answer.status {
        case "acknowledged": return "acknowledged by ralph for \(when): \(answer.acknowledgement ?? "")"
        case "sent": return "sent to ralph for \(when), not acknowledged yet" + (answer.note.map { " (\($0))" } ?? "")
        case "written": return "written to .ralph/urgent-steer.json for \(when)" + (answer.note.map { " (\($0))" } ?? "")
        default: return "delivered (event \(answer.id)) at \(answer.deliveredAt) for \(when)"
        }
    }
}
