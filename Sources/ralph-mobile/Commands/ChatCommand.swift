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

    @Option(help: "The agent a new conversation runs: claude (the default) or codex (`ralph-mobile backends` lists them).")
    var backend: String?

    @Option(help: "In a cluster, the host whose agent runs a new conversation (its name or id; `ralph-mobile hosts` lists them).")
    var host: String?

    @Option(name: [.customShort("m"), .long], help: "Send this message, print the reply, exit.")
    var message: String?

    @Option(help: "How many earlier messages to show first.")
    var history = 10

    func validate() throws {
        if new && id != nil { throw ValidationError("give a conversation id or --new, not both") }
        if !new && id == nil { throw ValidationError("give a conversation id, or --new --cwd <dir>") }
        if new && cwd == nil { throw ValidationError("--new needs --cwd <dir>") }
        if !new && backend != nil { throw ValidationError("--backend is for a new conversation (with --new)") }
        if !new && host != nil { throw ValidationError("--host is for a new conversation (with --new)") }
        if history < 0 { throw ValidationError("--history must be ≥ 0") }
    }

    enum Input: Sendable {
        case update(EventStream.Update)
        case line(String?)
    }

    @MainActor
    func run() async throws {
        let theme = server.theme
        try await withClient(server) { client in
            let conversation: Conversation
            if new, let cwd {
                conversation = try await client.createConversation(CreateConversationRequest(title: title, cwd: cwd, backend: backend, host: host))
                say(theme.dim("conversation \(conversation.id) in \(conversation.cwd) · \(conversation.backend)" + (conversation.host.map { " · on host \($0)" } ?? "")))
            } else {
                conversation = try await client.conversation(id ?? "")
                say(
                    theme.accent(conversation.title.isEmpty ? conversation.id : conversation.title)
                        + theme.dim("  \(conversation.id) · \(conversation.cwd) · \(conversation.backend)")
                )
            }
            let format = ChatFormat(theme: theme, agent: conversation.backend)
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
