import Foundation
import RalphAPI

/// Conversations and approvals (`design/CHAT.md`).
extension RalphClient {
    /// `GET /api/conversations`: a page of conversations, newest activity first; pass the page's `nextCursor` as `cursor`
    /// for the next. `pinned` keeps only pinned (true) or unpinned (false) ones; archived ones are left out unless
    /// `includeArchived`.
    public func conversations(limit: Int? = nil, cursor: String? = nil, pinned: Bool? = nil, includeArchived: Bool = false) async throws(RalphClientError)
        -> Page<Conversation>
    {
        var query: [(String, String)] = []
        if let limit { query.append(("limit", String(limit))) }
        if let cursor { query.append(("cursor", cursor)) }
        if let pinned { query.append(("pinned", pinned ? "true" : "false")) }
        if includeArchived { query.append(("archived", "true")) }
        return try await get("/api/conversations", query: query)
    }

    /// `POST /api/conversations` (operator): starts a conversation in a directory of a workspace root; a directory outside
    /// the roots is ``RalphClientError/invalidPath(_:)``.
    public func createConversation(_ request: CreateConversationRequest) async throws(RalphClientError) -> Conversation {
        try await send(.POST, "/api/conversations", json: request)
    }

    /// `GET /api/conversations/{id}`: one conversation, with its status and session rules.
    public func conversation(_ id: String) async throws(RalphClientError) -> Conversation {
        try await get("/api/conversations/\(Self.component(id))")
    }

    /// `PATCH /api/conversations/{id}` (operator): changes the title, pinned or archived flag; fields left nil stay as they are.
    public func updateConversation(_ id: String, _ change: PatchConversationRequest) async throws(RalphClientError) -> Conversation {
        try await send(.PATCH, "/api/conversations/\(Self.component(id))", json: change)
    }

    /// `DELETE /api/conversations/{id}` (operator): stops the conversation's agent process and removes everything of it.
    public func deleteConversation(_ id: String) async throws(RalphClientError) {
        _ = try await data(.DELETE, "/api/conversations/\(Self.component(id))")
    }

    /// The newest page of messages (`before` nil), or the page before a cursor; items oldest first.
    public func messages(_ conversationID: String, before: String? = nil, limit: Int? = nil) async throws(RalphClientError) -> Page<ChatMessage> {
        var query: [(String, String)] = []
        if let before { query.append(("before", before)) }
        if let limit { query.append(("limit", String(limit))) }
        return try await get("/api/conversations/\(Self.component(conversationID))/messages", query: query)
    }

    /// `POST /api/conversations/{id}/messages` (operator): `.queue` waits for the running turn to end, `.steer` interrupts
    /// it and goes next. The answer carries the turn id and the place in the queue (0: sent now).
    public func sendMessage(_ conversationID: String, text: String, mode: SendMode = .queue) async throws(RalphClientError) -> SendMessageResponse {
        try await send(.POST, "/api/conversations/\(Self.component(conversationID))/messages", json: SendMessageRequest(text: text, mode: mode))
    }

    /// Revokes a session rule of a conversation; returns the rule removed.
    public func revokeSessionRule(_ conversationID: String, ruleID: String) async throws(RalphClientError) -> SessionRule {
        try await send(.DELETE, "/api/conversations/\(Self.component(conversationID))/session-rules/\(Self.component(ruleID))")
    }

    /// `POST /api/conversations/{id}/interrupt` (operator): interrupts the running turn; the agent process stays. No turn
    /// running is a ``RalphClientError/conflict(_:)``.
    public func interrupt(_ conversationID: String) async throws(RalphClientError) -> InterruptResponse {
        try await send(.POST, "/api/conversations/\(Self.component(conversationID))/interrupt")
    }

    /// Approvals in a state (`nil` = every state), of one conversation or of all.
    public func approvals(state: ApprovalState? = .pending, conversationID: String? = nil) async throws(RalphClientError) -> [Approval] {
        var query = [("state", state?.rawValue ?? "all")]
        if let conversationID { query.append(("conversation", conversationID)) }
        return try await get("/api/approvals", query: query, as: ApprovalList.self).approvals
    }

    /// `POST /api/approvals/{id}` (operator): answers one approval (`updatedInput` replaces the tool call's input when
    /// allowed). One already decided, or cancelled because its turn ended, is a ``RalphClientError/conflict(_:)``.
    public func decide(_ approvalID: String, _ decision: ApprovalDecision, message: String? = nil, updatedInput: JSONValue? = nil) async throws(RalphClientError)
        -> Approval
    {
        try await send(
            .POST, "/api/approvals/\(Self.component(approvalID))", json: ApprovalDecisionRequest(decision: decision, message: message, updatedInput: updatedInput)
        )
    }

    /// The same decision for several approvals; each result says whether it was applied.
    public func decide(_ approvalIDs: [String], _ decision: ApprovalDecision, message: String? = nil) async throws(RalphClientError) -> [BatchApprovalResult] {
        try await send(.POST, "/api/approvals", json: BatchApprovalRequest(ids: approvalIDs, decision: decision, message: message), as: BatchApprovalResponse.self)
            .results
    }

    /// The conversation's event stream, resuming after `lastEventID`.
    public func conversationEvents(_ conversationID: String, after lastEventID: Int?, policy: ReconnectPolicy = ReconnectPolicy()) -> EventStream {
        EventStream(
            client: self, path: "/api/conversations/\(Self.component(conversationID))/events",
            query: lastEventID == nil ? [("history", "0")] : [], lastEventID: lastEventID.map(String.init), policy: policy
        )
    }
}
