import Foundation
import RalphAPI
import RalphMobileKit

/// A question asked before something that cannot be undone.
public struct ChatConfirmation: Hashable, Sendable {
    public let title: String
    public let message: String
    public let confirm: String
    public let isDestructive: Bool
}

/// What can be done to a conversation from its row or its chat screen (operators only).
public enum ConversationAction: String, Hashable, Sendable, Identifiable, CaseIterable {
    case pin
    case unpin
    case rename
    case archive
    case unarchive
    case delete

    public var id: String { rawValue }

    public var label: String {
        switch self {
        case .pin: "Pin to the top"
        case .unpin: "Unpin"
        case .rename: "Rename"
        case .archive: "Archive"
        case .unarchive: "Unarchive"
        case .delete: "Delete…"
        }
    }

    /// An SF Symbol for the action.
    public var symbolName: String {
        switch self {
        case .pin: "pin"
        case .unpin: "pin.slash"
        case .rename: "pencil"
        case .archive: "archivebox"
        case .unarchive: "tray.and.arrow.up"
        case .delete: "trash"
        }
    }

    public var isDestructive: Bool { self == .delete }

    /// Where a row offers the action as a swipe: pin and unpin from the leading edge, archive and delete from the
    /// trailing one; rename only in the row's menu.
    public var swipesFromLeadingEdge: Bool? {
        switch self {
        case .pin, .unpin: true
        case .archive, .unarchive, .delete: false
        case .rename: nil
        }
    }

    /// Said once it is done.
    public var doneNotice: String {
        switch self {
        case .pin: "Pinned"
        case .unpin: "Unpinned"
        case .rename: "Renamed"
        case .archive: "Archived"
        case .unarchive: "Moved back from the archive"
        case .delete: "Conversation deleted"
        }
    }

    /// The actions offered for `conversation`: none without the right to chat.
    public static func available(for conversation: Conversation, capabilities: Capabilities) -> [ConversationAction] {
        guard capabilities.canChat else { return [] }
        return [conversation.pinned ? .unpin : .pin, .rename, conversation.archived ? .unarchive : .archive, .delete]
    }

    /// Asked before deleting.
    public static func deleteConfirmation(_ conversation: Conversation) -> ChatConfirmation {
        ChatConfirmation(
            title: "Delete this conversation?",
            message: "“\(ConversationWords.title(conversation))” and all its messages, tool calls and approvals are removed from the server, "
                + "and its Claude process is stopped. This cannot be undone.",
            confirm: "Delete", isDestructive: true
        )
    }

    /// The longest title the server keeps.
    public static let maxTitleLength = 200

    /// Why a new title cannot be saved, nil when it can.
    public static func renameProblem(_ title: String) -> String? {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return "Enter a title." }
        if trimmed.count > maxTitleLength { return "At most 200 characters." }
        return nil
    }

    /// Carries out a change (everything but delete and rename, which need more) and returns the conversation as it is now.
    static func patch(for action: ConversationAction) -> PatchConversationRequest? {
        switch action {
        case .pin: PatchConversationRequest(pinned: true)
        case .unpin: PatchConversationRequest(pinned: false)
        case .archive: PatchConversationRequest(archived: true)
        case .unarchive: PatchConversationRequest(archived: false)
        case .rename, .delete: nil
        }
    }
}
