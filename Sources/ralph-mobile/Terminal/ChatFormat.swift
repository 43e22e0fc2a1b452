import Foundation
import RalphAPI
import RalphMobileKit

/// How conversations, messages and chat events look in the terminal.
struct ChatFormat {
    let theme: Theme
    /// The backend whose replies are shown (`claude ›`, `codex ›`).
    var agent = "claude"

    /// `claude ›`, in the agent's colour.
    var agentPrompt: String { theme.paint("\(agent) ›", Theme.purple, bold: true) }

    func status(_ status: ConversationStatus) -> String {
        switch status {
        case .idle: theme.dim("idle")
        case .running: theme.paint("running", Theme.green, bold: true)
        case .awaitingApproval: theme.paint("needs you", Theme.gold, bold: true)
        case .stalled: theme.bad("stalled")
        case .retrying: theme.paint("retrying", Theme.gold, bold: true)
        }
    }

    /// The permission mode and the session rules, one rule per line.
    func permissions(mode: String?, rules: [SessionRule]) -> String {
        var lines = ["permission mode: \(mode ?? "default")"]
        if rules.isEmpty { lines.append("no session rules: every call that needs approval asks") }
        for rule in rules {
            lines.append("  \(rule.id)  \(rule.rule.display)  — granted by \(rule.grantedBy), used \(rule.uses)×")
        }
        return lines.joined(separator: "\n")
    }

    func row(_ c: Conversation, width: Int) -> String {
        let pin = c.pinned ? theme.paint("★", Theme.gold) : " "
        let title = c.title.isEmpty ? theme.dim("(untitled)") : c.title
        let cost = String(format: "$%.4f", c.totalCostUsd)
        let line =
            "\(pin) \(theme.accent(c.id))  \(Text.pad(status(c.status), 10))  \(Text.pad(theme.dim(c.backend), 6))  \(Text.dateTime(c.lastActivityAt))  "
            + "\(theme.dim(cost))  \(title)  \(theme.dim(c.cwd))"
        return Text.fit(line, width)
    }

    func message(_ m: ChatMessage) -> String {
        var lines: [String] = []
        switch m.role {
        case .user: lines.append(theme.accent("you ›") + " " + m.text)
        case .assistant: if !m.text.isEmpty { lines.append(agentPrompt + " " + m.text) }
        case .system: lines.append(theme.dim(m.text))
        }
        for call in m.toolCalls {
            lines.append(toolLine(name: call.name, input: call.input))
            if let output = call.output { lines.append(outputLine(output, isError: call.isError == true)) }
            for diff in call.diffs ?? [] { lines.append("    " + theme.paint("✎ " + Self.diffSummary(diff), Theme.white, bold: true)) }
        }
        if let cost = m.costUsd { lines.append(theme.dim("  ✓ $" + String(format: "%.4f", cost) + (m.usage.map { " · \($0.inputTokens) in / \($0.outputTokens) out" } ?? ""))) }
        return lines.joined(separator: "\n")
    }

    func toolLine(name: String, input: JSONValue) -> String {
        "  " + theme.paint("⚙ \(name)", Theme.cyan) + " " + theme.dim(Text.cut(Self.summary(input), 160))
    }

    func outputLine(_ output: String, isError: Bool) -> String {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).prefix(3).map { Text.cut(String($0), 150) }
        let text = lines.joined(separator: "\n      ")
        return "    ↳ " + (isError ? theme.bad(text) : theme.dim(text))
    }

    func approval(_ a: Approval) -> String {
        let state: String =
            switch a.state {
            case .pending: theme.paint("pending", Theme.gold, bold: true)
            case .allowed: theme.good("allowed")
            case .denied: theme.bad("denied")
            case .cancelled: theme.dim("cancelled")
            }
        let rule = a.sessionRule.map { theme.dim("  (--session allows \($0.display))") } ?? ""
        return "\(theme.accent(a.id))  \(state)  \(a.toolName)  \(theme.dim(Text.cut(Self.summary(a.input), 120)))  \(theme.dim("conversation \(a.conversationId)"))"
            + rule
    }

    /// One line of auto-reply progress: state, cycles, messages, time, confidence, and why it stopped or paused.
    func autoReply(_ p: AutoReplyProgress) -> String {
        let state: String =
            switch p.state {
            case .running: theme.paint("running", Theme.green, bold: true)
            case .paused: theme.paint("paused", Theme.gold, bold: true)
            case .stopped: theme.dim("stopped")
            }
        var parts = ["auto-reply \(state)", p.mode.rawValue, "cycle \(p.iterations)/\(p.maxIterations)"]
        parts.append("sent \(p.messages)" + (p.maxMessages.map { "/\($0)" } ?? ""))
        parts.append(Text.duration(Double(p.elapsedSecs)) + (p.maxMinutes.map { " of \($0) min" } ?? ""))
        if let c = p.confidence { parts.append(String(format: "confidence %.2f", c)) }
        if let r = p.stopReason ?? p.pauseReason { parts.append(theme.paint(r.rawValue.replacingOccurrences(of: "_", with: " "), Theme.gold)) }
        if let d = p.detail { parts.append(theme.dim(d)) }
        return "  " + parts.joined(separator: " · ")
    }

    /// The part of a tool input a person needs to judge it: the command, the file, or the compact JSON.
    static func summary(_ input: JSONValue) -> String {
        if let object = input.objectValue {
            for key in ["command", "file_path", "path", "url", "pattern", "query"] {
                if let value = object[key]?.stringValue { return "\(key): \(value)" }
            }
            if let paths = object["paths"]?.arrayValue?.compactMap(\.stringValue), !paths.isEmpty { return "paths: " + paths.joined(separator: ", ") }
        }
        return String(decoding: JSONWriter.bytes(input), as: UTF8.self)
    }
}
