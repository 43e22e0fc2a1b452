import RalphAPI

/// The words a Live Activity shows, so the widget's views only lay them out.
extension LiveActivityState {
    /// `Running`, `Waiting for approval`, `Completed` …
    public var phaseTitle: String {
        switch phase {
        case .running: "Running"
        case .paused: "Paused"
        case .waitingForAnswer: "Question waiting"
        case .waitingForApproval: (waiting?.count ?? 1) > 1 ? "\(waiting!.count) approvals waiting" : "Approval waiting"
        case .idle: "Idle"
        case .completed: "Completed"
        case .failed: "Failed" + (endReason.map { $0 == "failed" ? "" : " (\($0.replacingOccurrences(of: "_", with: " ")))" } ?? "")
        case .stopped: "Stopped"
        }
    }

    /// `7/20` or `7` (a run), empty for a conversation.
    public var progressText: String {
        guard iteration > 0 || total != nil else { return "" }
        return total.map { "\(iteration)/\($0)" } ?? String(iteration)
    }

    /// How far a run is, 0…1, when its total is known.
    public var progressFraction: Double? {
        guard let total, total > 0 else { return nil }
        return min(1, Double(iteration) / Double(total))
    }

    /// The second line: what waits (`Bash: npm test`), else the latest event (`build.done`).
    public var detailLine: String? {
        if let waiting {
            return [waiting.what == "question" ? "Question" : waiting.what, waiting.detail].compactMap { $0 }.joined(separator: ": ")
        }
        return lastEvent
    }

    /// The Dynamic Island's compact leading text: the iteration (`7/20`), or `!` when a person is needed.
    public var compactLeading: String {
        if phase.needsPerson { return "!" }
        return progressText.isEmpty ? phaseTitle : progressText
    }

    /// The compact trailing text: the hat, the waiting tool, or the phase.
    public var compactTrailing: String {
        if phase.needsPerson { return waiting?.what == "question" ? "Question" : (waiting?.what ?? "Approval") }
        if phase.isFinal { return phaseTitle }
        return hat ?? phaseTitle
    }

    /// The minimal presentation (one glyph's worth): the iteration, or `!`.
    public var minimalText: String {
        if phase.needsPerson { return "!" }
        if phase.isFinal { return phase == .completed ? "✓" : "✗" }
        return iteration > 0 ? String(iteration) : "…"
    }

    /// What VoiceOver reads for the whole activity.
    public var accessibilityText: String {
        var parts = [phaseTitle]
        if !progressText.isEmpty { parts.append("iteration \(progressText.replacingOccurrences(of: "/", with: " of "))") }
        if let hat, !phase.needsPerson { parts.append("hat \(hat)") }
        if let detailLine { parts.append(detailLine) }
        if let backpressure { parts.append("checks: \(backpressure.passed) passed, \(backpressure.failed) failed") }
        return parts.joined(separator: ", ")
    }
}
