import Foundation
import RalphAPI

/// A conversation's messages grouped into turns: what was asked (or the note saying why the agent went on by itself),
/// then each stored segment of the reply with the tools it called, then the text still streaming, then the turn's cost.
public struct ChatTurn: Hashable, Sendable, Identifiable {
    /// The turn id (`message-<id>` for a message that belongs to no turn).
    public let id: String
    public let prompt: ChatPrompt?
    public let replies: [ChatReply]
    /// The reply being written now, as blocks; nil when nothing is streaming in this turn.
    public let streaming: ChatMarkdown?
    /// The turn is the one running now.
    public let isRunning: Bool
    /// `$0.0042 · 1,234 tokens` once the turn completed.
    public let footer: String?
    /// The error the agent reported for this turn.
    public let error: ChatTurnError?

    /// What VoiceOver says for the turn's heading: `You: …` or `Claude went on by itself: …`.
    public var accessibilityHeading: String? {
        guard let prompt else { return nil }
        return (prompt.isAgentNote ? ChatPrompt.agentNoteCaption : "You") + ": " + ChatFormat.truncated(prompt.text, to: 200)
    }
}

/// What started a turn: the message a person (or auto-reply) sent, or a system note when the agent started by itself.
public struct ChatPrompt: Hashable, Sendable, Identifiable {
    /// Notes longer than this show their start and a "Show all" button.
    public static let notePreviewLimit = 400

    public let id: String
    public let text: String
    /// True for a turn the agent started by itself (after a background task finished).
    public let isAgentNote: Bool
    public let createdAt: String

    /// The note as first shown (the message of a person is always shown whole).
    public var preview: String {
        isAgentNote && text.count > Self.notePreviewLimit ? String(text.prefix(Self.notePreviewLimit)) + "…" : text
    }

    public var isCollapsed: Bool { isAgentNote && text.count > Self.notePreviewLimit }

    /// Under an agent's note.
    public static let agentNoteCaption = "Claude went on by itself"

    /// `You: …`, or `Claude went on by itself: …`.
    public var accessibilityLabel: String { (isAgentNote ? Self.agentNoteCaption : "You") + ": " + text }
}

/// One stored segment of a reply: its text as markdown blocks and the tool calls that followed it.
public struct ChatReply: Hashable, Sendable, Identifiable {
    public let id: String
    public let markdown: ChatMarkdown
    public let tools: [ChatToolCallItem]
    public let createdAt: String

    public var hasText: Bool { !markdown.blocks.isEmpty }
}

/// A turn that ended in an error.
public struct ChatTurnError: Hashable, Sendable {
    public let message: String
    public let recoverable: Bool

    /// `The turn failed: …`.
    public var title: String { "The turn failed: " + message }
    /// What to do next, when sending again helps.
    public var hint: String? { recoverable ? "Send another message to carry on (the session is resumed)." : nil }
}

/// Builds turns from a ``RalphMobileKit/ConversationModel``'s state. Pure: the same input gives the same turns.
public enum ChatTranscript {
    public struct Input: Sendable {
        /// Oldest first.
        public var messages: [ChatMessage]
        public var streamingText: String
        public var currentTurnID: String?
        public var isBusy: Bool
        public var pendingApprovals: [Approval]
        /// Decisions of answered approvals, by tool use id.
        public var decisions: [String: ChatToolDecision]
        public var agentError: ChatErrorEvent?

        public init(
            messages: [ChatMessage], streamingText: String = "", currentTurnID: String? = nil, isBusy: Bool = false, pendingApprovals: [Approval] = [],
            decisions: [String: ChatToolDecision] = [:], agentError: ChatErrorEvent? = nil
        ) {
            self.messages = messages
            self.streamingText = streamingText
            self.currentTurnID = currentTurnID
            self.isBusy = isBusy
            self.pendingApprovals = pendingApprovals
            self.decisions = decisions
            self.agentError = agentError
        }
    }

    /// The turns, oldest first. `markdown` parses a message's text (a cache can be passed in; parsing is the costly part).
    public static func turns(_ input: Input, markdown: (ChatMessage) -> ChatMarkdown = { ChatMarkdown($0.text) }) -> [ChatTurn] {
        // Group by turn, in the order turns first appear.
        var order: [String] = []
        var grouped: [String: [ChatMessage]] = [:]
        for message in input.messages {
            let key = message.turnId ?? "message-\(message.id)"
            if grouped[key] == nil { order.append(key) }
            grouped[key, default: []].append(message)
        }
        let running = input.isBusy ? input.currentTurnID : nil
        let streaming = input.streamingText.isEmpty ? nil : ChatMarkdown(input.streamingText)
        if let current = input.currentTurnID, streaming != nil, grouped[current] == nil {
            order.append(current)
            grouped[current] = []
        }
        let pendingByTool = Dictionary(
            input.pendingApprovals.compactMap { approval in approval.toolUseId.map { ($0, approval.id) } }, uniquingKeysWith: { first, _ in first }
        )
        var turns: [ChatTurn] = order.map { key in
            let messages = grouped[key] ?? []
            let isRunning = key == running
            let first = messages.first { $0.role == .user || $0.role == .system }
            let prompt = first.map { ChatPrompt(id: $0.id, text: $0.text, isAgentNote: $0.role == .system, createdAt: $0.createdAt) }
            let replies = messages.filter { $0.role == .assistant || ($0.role != .assistant && $0.id != first?.id) }.map { message in
                ChatReply(
                    id: message.id, markdown: message.role == .assistant ? markdown(message) : ChatMarkdown(message.text),
                    tools: message.toolCalls.map {
                        ChatToolCallItem($0, turnRunning: isRunning, pendingApprovalID: pendingByTool[$0.toolUseId], decision: input.decisions[$0.toolUseId])
                    },
                    createdAt: message.createdAt
                )
            }
            let error = input.agentError.flatMap { $0.turnId == key ? ChatTurnError(message: $0.message, recoverable: $0.recoverable) : nil }
            return ChatTurn(
                id: key, prompt: prompt, replies: replies, streaming: key == input.currentTurnID ? streaming : nil, isRunning: isRunning,
                footer: isRunning ? nil : footer(messages), error: error
            )
        }
        // An error of no known turn goes under the last one.
        if let error = input.agentError, !turns.contains(where: { $0.error != nil }), let last = turns.popLast() {
            turns.append(
                ChatTurn(
                    id: last.id, prompt: last.prompt, replies: last.replies, streaming: last.streaming, isRunning: last.isRunning, footer: last.footer,
                    error: ChatTurnError(message: error.message, recoverable: error.recoverable)
                )
            )
        }
        return turns
    }

    /// Cost and tokens of a completed turn, from the message they are stored on.
    static func footer(_ messages: [ChatMessage]) -> String? {
        guard let last = messages.last(where: { $0.costUsd != nil || $0.usage != nil }) else { return nil }
        let parts = [ChatFormat.cost(last.costUsd), ChatFormat.tokens(last.usage)].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }
}
