import Foundation
import RalphAPI

/// One row of the approvals inbox.
public struct ApprovalRow: Hashable, Sendable, Identifiable {
    public let id: String
    public let conversationID: String
    public let toolName: String
    /// What the call does, in one line.
    public let summary: String
    /// The conversation's title (`a conversation` until it is read, `a deleted conversation`).
    public let conversationTitle: String
    public let createdAt: String
    public let isPending: Bool
    public let isSelected: Bool
    /// For a decided one: `allowed`, `allowed (session)`, `allowed by a rule`, `denied`, `cancelled`.
    public let stateText: String?
    public let tone: ChatTone
    /// What a file edit will change: `notes.txt · +1 −1`, `2 files · +4 −1`; nil for other tools.
    public let diffSummary: String?

    init(_ approval: Approval, title: String, selected: Bool) {
        id = approval.id
        conversationID = approval.conversationId
        toolName = approval.toolName
        summary = ChatToolCallItem.summary(name: approval.toolName, input: approval.input)
        conversationTitle = title
        createdAt = approval.createdAt
        diffSummary = DiffSummary.line((approval.diffs ?? []).enumerated().map { DiffSummary($1, index: $0) })
        isPending = approval.state == .pending
        isSelected = selected && isPending
        switch approval.state {
        case .pending:
            stateText = nil
            tone = .attention
        case .allowed:
            stateText = approval.decision == .allowSession ? (approval.decidedBy?.hasPrefix("rule ") == true ? "allowed by a rule" : "allowed (session)") : "allowed"
            tone = .success
        case .denied:
            stateText = "denied"
            tone = .danger
        case .cancelled:
            stateText = "cancelled"
            tone = .neutral
        }
    }

    /// `5m ago`.
    public func age(now: Date) -> String { ChatFormat.relativeTime(createdAt, now: now) }

    /// `Fix the tests · 5m ago`.
    public func subtitle(now: Date) -> String { conversationTitle + " · " + age(now: now) }

    /// `Bash: touch a.txt, in Fix the tests, 5m ago. Open details`.
    public func accessibilityLabel(now: Date) -> String {
        "\(toolName): \(summary)" + (diffSummary.map { ", " + $0 } ?? "") + ", in \(conversationTitle), \(age(now: now))" + (stateText.map { ", " + $0 } ?? "")
            + ". Open details"
    }

    public var selectAccessibilityLabel: String { "Select \(toolName): \(summary)" }
    public var openConversationAccessibilityLabel: String { "Open the conversation \(conversationTitle)" }
}
