import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// What the chat screen does to the conversation itself (pin, archive, rename, delete) and to its auto-reply loop.
extension ChatModel {
    // MARK: - Conversation actions

    /// Pins, unpins, archives or unarchives the conversation (rename and delete have their own calls).
    @discardableResult
    public func perform(_ action: ConversationAction) async -> Bool {
        guard let patch = ConversationAction.patch(for: action) else { return false }
        let changed = await report(done: action.doneNotice) { () async throws(RalphClientError) in
            try await client.updateConversation(conversationID, patch)
        }
        guard let changed else { return false }
        info = changed
        return true
    }

    /// Renames it; returns why not (locally, or the server's answer), nil when done.
    public func rename(_ title: String) async -> String? {
        if let problem = ConversationAction.renameProblem(title) { return problem }
        do {
            info = try await client.updateConversation(conversationID, PatchConversationRequest(title: title.trimmingCharacters(in: .whitespacesAndNewlines)))
            notice = ConversationAction.rename.doneNotice
            return nil
        } catch {
            return error.description
        }
    }

    public var deleteConfirmation: ChatConfirmation? { (info ?? conversation.conversation).map(ConversationAction.deleteConfirmation) }

    /// Deletes the conversation (after ``deleteConfirmation``): its process is stopped and everything of it removed.
    @discardableResult
    public func delete() async -> Bool {
        do {
            try await client.deleteConversation(conversationID)
            notice = ConversationAction.delete.doneNotice
            markDeleted()
            return true
        } catch {
            lastError = error.description
            return false
        }
    }

    // MARK: - Auto-reply from the status bar

    @discardableResult
    public func perform(_ control: AutoReplyControl) async -> Bool {
        guard capabilities.canControlAutoReply else { return false }
        let done: Bool
        switch control {
        case .start: done = await autoReply.start()
        case .pause: done = await autoReply.pause()
        case .resume: done = await autoReply.resume()
        case .stop: done = await autoReply.stop()
        }
        if !done { lastError = autoReply.lastError }
        return done
    }

    /// What to show in a toast now: the notice, else the last error.
    public var toast: String? { notice ?? lastError }

    /// The toast was shown.
    public func clearNotice() {
        notice = nil
        lastError = nil
    }
}
