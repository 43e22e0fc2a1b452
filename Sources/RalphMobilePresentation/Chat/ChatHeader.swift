import Foundation
import RalphAPI
import RalphMobileKit

/// The top of a chat: title, where it runs, its status, queue, cost and the live connection.
public struct ChatHeader: Hashable, Sendable {
    public let title: String
    /// The agent it runs (`Claude Code`, `Codex`), once the conversation is read.
    public let backendText: String?
    /// `…/work/app · model sonnet · plan · ★ pinned · archived`.
    public let details: [String]
    /// The details on one line, nil when there are none.
    public var detailsLine: String? { details.isEmpty ? nil : details.joined(separator: " · ") }
    /// The whole working directory (the details show its end).
    public let path: String?
    public let statusText: String
    public let statusTone: ChatTone
    /// `2 queued`, nil when nothing waits.
    public let queuedText: String?
    /// `total $0.12`, nil before any cost.
    public let costText: String?
    public let connectionText: String
    public let connectionTone: ChatTone
    /// Reconnection attempts since the last success, when there were any.
    public let reconnectsText: String?

    public init(conversation: Conversation?, info: Conversation?, status: ConversationStatus, connection: ConnectionState, reconnects: Int) {
        title = ConversationWords.title(conversation)
        backendText = conversation.map { ChatBackendChoice.title($0.backend) }
        let pinned = info?.pinned ?? conversation?.pinned ?? false
        let archived = info?.archived ?? conversation?.archived ?? false
        var details: [String] = []
        if let cwd = conversation?.cwd { details.append(ChatFormat.shortPath(cwd)) }
        if let model = conversation?.model { details.append("model " + model) }
        let mode = conversation?.agentPermissionMode ?? conversation?.permissionMode ?? "default"
        if mode != "default" { details.append(mode) }
        if pinned { details.append("★ pinned") }
        if archived { details.append("archived") }
        self.details = details
        path = conversation?.cwd
        statusText = ConversationWords.status(status)
        statusTone = ConversationWords.tone(status)
        let queued = conversation?.queued ?? 0
        queuedText = queued > 0 ? "\(queued) queued" : nil
        let cost = max(conversation?.totalCostUsd ?? 0, info?.totalCostUsd ?? 0)
        costText = cost > 0 ? ChatFormat.cost(cost).map { "total " + $0 } : nil
        connectionText = ConversationWords.connection(connection)
        connectionTone = ConversationWords.connectionTone(connection)
        reconnectsText = reconnects > 0 ? (reconnects == 1 ? "1 reconnect" : "\(reconnects) reconnects") : nil
    }

    /// For VoiceOver: `Fix the tests, Claude Code, running, 2 queued, live`.
    public var accessibilityLabel: String {
        [title, backendText, statusText, queuedText, costText, connectionText].compactMap { $0 }.joined(separator: ", ")
    }
}
