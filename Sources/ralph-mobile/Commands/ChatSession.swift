import Foundation
import RalphAPI
import RalphMobileKit

/// The state of one chat screen in the terminal: what is being streamed, what waits for approval.
@MainActor
final class ChatSession {
    enum Outcome { case completed, failed }
    enum LineResult { case handled, quit }

    let conversationID: String
    let format: ChatFormat
    let interactive: Bool
    var pending: [Approval] = []
    /// With --message: the turn to wait for, and how it ended.
    var waitingFor: String?
    var finished: Outcome?
    var streaming = false
    var everConnected = false
    var theme: Theme { format.theme }

    init(conversationID: String, format: ChatFormat, interactive: Bool) {
        self.conversationID = conversationID
        self.format = format
        self.interactive = interactive
    }

    func connection(_ state: ConnectionState) {
        switch state {
        case .reconnecting(let n): note(theme.paint("… connection lost, reconnecting (attempt \(n))", Theme.gold))
        case .connected:
            if everConnected { note(theme.dim("… reconnected; resuming after the last event shown")) }
            everConnected = true
        default: break
        }
    }

    func receive(_ frame: SSEParser.Event) {
        guard let event = try? ChatEvent.decode(name: frame.event, data: Data(frame.data.utf8)) else { return }
        switch event {
        case .turnStart(let e):
            endStreamingLine()
            if e.origin == .agent {
                say(theme.dim("  ⟲ the agent goes on by itself — \(e.text)"))
            } else if interactive {
                say(theme.accent("you ›") + " " + e.text)
            }
        case .chunk(let e):
            if !streaming {
                Output.write(format.agentPrompt + " ", to: STDOUT_FILENO)
                streaming = true
            }
            Output.write(e.text, to: STDOUT_FILENO)
        case .segmentEnd:
            endStreamingLine()
        case .toolStart(let e):
            endStreamingLine()
            say(format.toolLine(name: e.name, input: e.input))
        case .toolEnd(let e):
            say(format.outputLine(e.output ?? "", isError: e.isError == true))
            if let diffs = e.diffs, !diffs.isEmpty { say(format.diffs(diffs)) }
        case .permissionRequired(let e):
            endStreamingLine()
            let approval = Approval(
                id: e.approvalId, conversationId: conversationID, turnId: e.turnId, toolUseId: e.toolUseId, toolName: e.toolName, input: e.input,
                suggestions: e.suggestions, sessionRule: e.sessionRule, description: e.description, displayName: e.displayName,
                blockedPath: e.blockedPath, reason: e.reason, diffs: e.diffs, createdAt: Timestamp.now()
            )
            if !pending.contains(where: { $0.id == approval.id }) {
                pending.append(approval)
                print(approvalPrompt: approval)
            }
        case .permissionResolved(let e):
            if pending.contains(where: { $0.id == e.approvalId }) {
                pending.removeAll { $0.id == e.approvalId }
                say(theme.dim("  approval \(e.approvalId): \(e.decision)" + (e.by.map { " by \($0)" } ?? "")))
            }
        case .complete(let e):
            endStreamingLine()
            var parts = ["✓ done"]
            if let cost = e.costUsd { parts.append("$" + String(format: "%.4f", cost)) }
            parts.append("\(e.usage.inputTokens) in / \(e.usage.outputTokens) out")
            if let ms = e.durationMs { parts.append(Text.duration(Double(ms) / 1000)) }
            if let reason = e.stopReason, reason != "end_turn" { parts.append(reason) }
            say(theme.dim("  " + parts.joined(separator: " · ")))
            if waitingFor == e.turnId { finished = .completed }
        case .error(let e):
            endStreamingLine()
            say(theme.bad("  ✗ \(e.message)") + (e.recoverable ? theme.dim(" — send another message to carry on") : ""))
            if waitingFor != nil, e.turnId == nil || waitingFor == e.turnId { finished = .failed }
        case .titleUpdate(let e):
            note(theme.dim("title: \(e.title)"))
        case .status(let e):
            if e.status == .stalled {
                endStreamingLine()
                say(theme.paint("  … no output for \(e.silentSecs ?? 0) s (stalled) — /interrupt to stop the turn", Theme.gold))
            } else if e.status == .retrying, let retry = e.retry {
                endStreamingLine()
                say(theme.paint("  … " + ConversationModel.describe(retry), Theme.gold))
            }
        case .permissions(let e):
            note(theme.dim(format.permissions(mode: e.permissionMode, rules: e.sessionRules)))
        case .autoReply(let p):
            endStreamingLine()
            say(format.autoReply(p))
        }
    }

    func print(approvalPrompt a: Approval) {
        say(
            theme.paint("  ⚠ \(a.toolName) needs your approval", Theme.gold, bold: true) + "  " + theme.dim(Text.cut(ChatFormat.summary(a.input), 200))
        )
        if let description = a.description { say(theme.dim("    " + Text.cut(description, 200))) }
        if let diffs = a.diffs, !diffs.isEmpty { say(format.diffs(diffs)) }
        if interactive {
            let session = a.sessionRule.map { "s allow \($0.display) for this session" } ?? "s allow for this session"
            say(theme.dim("    a allow · \(session) · d [message] deny   (") + theme.dim(a.id) + theme.dim(")"))
        } else {
            say(theme.dim("    answer with: ralph-mobile approvals allow \(a.id)   (or deny)"))
        }
    }

    /// A line typed by the person.
    func handle(line raw: String, client: RalphClient) async -> LineResult {
        let line = raw.trimmingCharacters(in: .whitespaces)
        guard !line.isEmpty else { return .handled }
        do {
            if let approval = pending.first, let decision = Self.decision(line) {
                let text = line.count > 1 ? String(line.dropFirst()).trimmingCharacters(in: .whitespaces) : nil
                _ = try await client.decide(approval.id, decision.0, message: decision.0 == .deny ? text : nil)
                pending.removeAll { $0.id == approval.id }
                say(theme.dim("  \(decision.1) \(approval.toolName)"))
                return .handled
            }
            switch line {
            case "/quit", "/exit": return .quit
            case "/interrupt":
                let r = try await client.interrupt(conversationID)
                note(theme.dim("interrupting turn \(r.turnId)…"))
            case "/approvals":
                if pending.isEmpty { note(theme.dim("nothing waits for approval")) }
                for approval in pending { print(approvalPrompt: approval) }
            case "/rules":
                let c = try await client.conversation(conversationID)
                note(theme.dim(format.permissions(mode: c.agentPermissionMode ?? c.permissionMode, rules: c.sessionRules)))
            default:
                if line.hasPrefix("/revoke ") {
                    let rule = try await client.revokeSessionRule(conversationID, ruleID: String(line.dropFirst(8)).trimmingCharacters(in: .whitespaces))
                    note(theme.dim("revoked \(rule.rule.display): it asks again from now on"))
                } else if line.hasPrefix("/steer ") {
                    let r = try await client.sendMessage(conversationID, text: String(line.dropFirst(7)), mode: .steer)
                    note(theme.dim("steering: turn \(r.turnId) goes next"))
                } else if line.hasPrefix("/") {
                    note(theme.bad("unknown command \(line.split(separator: " ")[0])") + theme.dim(" — /interrupt, /steer <text>, /approvals, /rules, /revoke <rule>, /quit"))
                } else {
                    let r = try await client.sendMessage(conversationID, text: raw)
                    if r.queuedPosition > 0 { note(theme.dim("queued (#\(r.queuedPosition)) — it is sent when the running turn ends")) }
                }
            }
        } catch {
            note(theme.bad("✗ \(error.description)"))
        }
        return .handled
    }

    /// `a`, `s`, `d …` while an approval waits.
    static func decision(_ line: String) -> (ApprovalDecision, String)? {
        switch line.lowercased() {
        case "a", "y", "allow": return (.allow, "allowed")
        case "s", "allow session": return (.allowSession, "allowed for this session")
        default:
            if line == "d" || line == "n" || line.hasPrefix("d ") || line.lowercased() == "deny" { return (.deny, "denied") }
            return nil
        }
    }

    func endStreamingLine() {
        if streaming {
            Output.write("\n", to: STDOUT_FILENO)
            streaming = false
        }
    }

    func note(_ text: String) {
        endStreamingLine()
        say(text)
    }
}

/// Lines typed on stdin, read on a thread of their own; nil at end of input.
enum LineReader {
    static func start(_ sink: AsyncStream<ChatCommand.Input>.Continuation) {
        let thread = Thread {
            while let line = readLine(strippingNewline: true) { sink.yield(.line(line)) }
            sink.yield(.line(nil))
        }
        thread.name = "ralph-mobile.lines"
        thread.start()
    }
}
