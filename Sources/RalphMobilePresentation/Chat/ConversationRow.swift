import Foundation
import RalphAPI

/// One row of the conversations list.
public struct ConversationRow: Hashable, Sendable, Identifiable {
    public let id: String
    public let title: String
    /// The agent it runs: `Claude Code`, `Codex`.
    public let backendText: String
    public let isPinned: Bool
    public let isArchived: Bool
    /// `running`, `stalled` …; nil when the approvals badge says more (waiting for approvals).
    public let statusText: String?
    public let statusTone: ChatTone
    /// `2 approvals` while approvals wait.
    public let approvalsText: String?
    /// While the model API is retried: `Retrying the model API (attempt 3 of 10, HTTP 529): overloaded`.
    public let retryText: String?
    /// Start of the last message.
    public let preview: String?
    /// `…/work/app`.
    public let shortPath: String
    public let path: String
    public let lastActivityAt: String

    @MainActor
    public init(_ conversation: Conversation) {
        id = conversation.id
        title = ConversationWords.title(conversation)
        backendText = ChatBackendChoice.title(conversation.backend)
        isPinned = conversation.pinned
        isArchived = conversation.archived
        let waiting = conversation.pendingApprovals > 0
        statusText = waiting && conversation.status == .awaitingApproval ? nil : ConversationWords.status(conversation.status)
        statusTone = ConversationWords.tone(conversation.status)
        approvalsText = waiting ? ConversationWords.approvals(conversation.pendingApprovals) : nil
        retryText = conversation.status == .retrying ? ConversationWords.retry(conversation.retry) : nil
        preview = conversation.lastMessagePreview.flatMap { $0.isEmpty ? nil : $0 }
        shortPath = ChatFormat.shortPath(conversation.cwd)
        path = conversation.cwd
        lastActivityAt = conversation.lastActivityAt
    }

    /// `5m ago`.
    public func activity(now: Date) -> String { ChatFormat.relativeTime(lastActivityAt, now: now) }

    /// Everything in one sentence, for VoiceOver: `Pinned. Fix the tests, Claude Code, running, 2 approvals, …/work/app, 5m ago`.
    public func accessibilityLabel(now: Date) -> String {
        let parts = [title, isArchived ? "archived" : nil, backendText, statusText, approvalsText, retryText, preview, shortPath, activity(now: now)]
        return (isPinned ? "Pinned. " : "") + parts.compactMap { $0 }.joined(separator: ", ")
    }
}
