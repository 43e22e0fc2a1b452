/// Events of `GET /api/conversations/{id}/events` (`design/CHAT.md`). Each is persisted with a per-conversation
/// sequence number (its SSE `id:`) before it is sent.
public enum ChatEventName {
    public static let turnStart = "turn_start"
    public static let chunk = "chunk"
    public static let segmentEnd = "segment_end"
    public static let toolStart = "tool_start"
    public static let toolEnd = "tool_end"
    public static let permissionRequired = "permission_required"
    public static let permissionResolved = "permission_resolved"
    public static let complete = "complete"
    public static let error = "error"
    public static let titleUpdate = "title_update"
    public static let autoReply = "auto_reply"
    /// Added by this server: the conversation's status changed (running, awaiting approval, stalled, retrying, idle).
    public static let status = "status"
    /// Added by this server: the permission mode the agent reports, or the session rules, changed.
    public static let permissions = "permissions"

    /// On the global `GET /api/events` stream.
    public static let approvalPending = "approval.pending"
    public static let approvalResolved = "approval.resolved"
    public static let conversationUpdated = "conversation.updated"
    public static let conversationRemoved = "conversation.removed"
    /// An auto-reply loop stopped or paused for something a person must see (a showstopper, a limit, an error).
    public static let autoReplyNotice = "auto_reply.notice"
}
