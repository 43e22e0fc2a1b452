import ArgumentParser
import Foundation
import RalphAPI
import RalphMobileKit

/// `ralph-mobile chat`: talk to Claude Code through the server — type, watch the reply stream, answer approvals.
struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Chat with Claude Code on the server: replies stream as they are written; tool calls wait for you.",
        discussion: """
            Type a message and press Enter; while a turn runs, messages queue behind it. When a tool call needs approval, \
            answer with a key and Enter: a (allow), s (allow for this session), d [message] (deny, telling Claude why).
            Commands: /interrupt  stop the running turn · /steer <text>  interrupt and send this instead · \
            /approvals  show what waits · /quit (or Ctrl-D).
            With --message the command sends one message, prints the reply and exits (0 when the turn completes, 1 on error).
            The stream resumes after a dropped connection or a server restart without losing or repeating anything.
            """
    )

    @OptionGroup var server: ServerOptions

    @Argument(help: "The conversation id (omit with --new).")
    var id: String?

    @Flag(help: "Start a new conversation (needs --cwd).")
    var new = false

    @Option(help: "Working directory of a new conversation.")
    var cwd: String?

    @Option(help: "Title of a new conversation.")
    var title: String?

    @Option(name: [.customShort("m"), .long], help: "Send this message, print the reply, exit.")
    var message: String?

    @Option(help: "How many earlier messages to show first.")
    var history = 10

    func validate() throws {
        if new && id != nil { throw ValidationError("give a conversation id or --new, not both") }
        if !new && id == nil { throw ValidationError("give a conversation id, or --new --cwd <dir>") }
        if new && cwd == nil { throw ValidationError("--new needs --cwd <dir>") }
        if history < 0 { throw ValidationError("--history must be ≥ 0") }
    }

    enum Input: Sendable {
        case update(EventStream.Update)
        case line(String?)
    }

    @MainActor
    func run() async throws {
        let theme = server.theme
        let format = ChatFormat(theme: theme)
        try await withClient(server) { client in
            let conversation: Conversation
            if new, let cwd {
                conversation = try await client.createConversation(CreateConversationRequest(title: title, cwd: cwd))
                say(theme.dim("conversation \(conversation.id) in \(conversation.cwd)"))
            } else {
                conversation = try await client.conversation(id ?? "")
                say(theme.accent(conversation.title.isEmpty ? conversation.id : conversation.title) + theme.dim("  \(conversation.id) · \(conversation.cwd)"))
            }
            let page = try await client.messages(conversation.id, limit: max(1, history))
            if history > 0 { for m in page.items.suffix(history) { say(format.message(m)) } }
            let session = ChatSession(conversationID: conversation.id, format: format, interactive: message == nil)
            session.pending = try await client.approvals(state: .pending, conversationID: conversation.id)
            for approval in session.pending { session.print(approvalPrompt: approval) }

            let (inputs, sink) = AsyncStream<Input>.makeStream()
            let stream = client.conversationEvents(conversation.id, after: page.lastEventId ?? 0)
            let streamTask = Task {
                for await update in stream.updates() { sink.yield(.update(update)) }
            }
            defer { streamTask.cancel() }
            if isatty(STDIN_FILENO) == 1 || message == nil { LineReader.start(sink) }
            if let message {
                let response = try await client.sendMessage(conversation.id, text: message)
                session.waitingFor = response.turnId
            }
            for await input in inputs {
                switch input {
                case .update(.event(let event)):
                    session.receive(event)
                case .update(.state(let state)):
                    session.connection(state)
                    if case .error(let text) = state { throw RalphMobileFailure(message: text) }
                case .update(.end):
                    break
                case .line(nil):
                    if message == nil { return }
                case .line(let line?):
                    if await session.handle(line: line, client: client) == .quit { return }
                }
                if let outcome = session.finished {
                    if outcome == .failed { throw ExitCode.failure }
                    return
                }
            }
        }
    }
}

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
                Output.write(theme.paint("claude ›", Theme.purple, bold: true) + " ", to: STDOUT_FILENO)
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
        case .permissionRequired(let e):
            endStreamingLine()
            let approval = Approval(
                id: e.approvalId, conversationId: conversationID, turnId: e.turnId, toolUseId: e.toolUseId, toolName: e.toolName, input: e.input,
                suggestions: e.suggestions, sessionRule: e.sessionRule, description: e.description, displayName: e.displayName,
                blockedPath: e.blockedPath, reason: e.reason, createdAt: Timestamp.now()
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
