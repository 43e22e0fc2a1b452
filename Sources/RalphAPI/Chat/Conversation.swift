/// Conversations with an agent CLI (Claude Code first): the resources of `/api/conversations` and `/api/approvals`.
///
/// See `design/CHAT.md`. Ids are opaque strings; timestamps are `Timestamp.format` strings (UTC, milliseconds).

/// Where a conversation's agent process is.
public enum ConversationStatus: String, Codable, Hashable, Sendable {
    /// No turn running (the process may be alive and waiting, or stopped after being idle).
    case idle
    /// A turn is running.
    case running
    /// A turn is waiting for an approval from a person.
    case awaitingApproval = "awaiting_approval"
    /// A turn has produced no output for a while and is not waiting for an approval.
    case stalled
    /// The agent CLI is retrying the model API (overloaded, rate limited …); ``Conversation/retry`` says why.
    case retrying
}

/// Token counts of a turn or a conversation (the CLI's `usage`, summed).
public struct TokenUsage: Codable, Hashable, Sendable {
    public var inputTokens: Int
    public var outputTokens: Int
    public var cacheCreationInputTokens: Int
    public var cacheReadInputTokens: Int

    public init(inputTokens: Int = 0, outputTokens: Int = 0, cacheCreationInputTokens: Int = 0, cacheReadInputTokens: Int = 0) {
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.cacheCreationInputTokens = cacheCreationInputTokens
        self.cacheReadInputTokens = cacheReadInputTokens
    }

    /// Reads the CLI's open `usage` map; missing or odd fields count as 0.
    public init(_ value: JSONValue?) {
        let object = value?.objectValue
        self.init(
            inputTokens: object?["input_tokens"]?.intValue ?? 0, outputTokens: object?["output_tokens"]?.intValue ?? 0,
            cacheCreationInputTokens: object?["cache_creation_input_tokens"]?.intValue ?? 0,
            cacheReadInputTokens: object?["cache_read_input_tokens"]?.intValue ?? 0
        )
    }

    public static func + (a: TokenUsage, b: TokenUsage) -> TokenUsage {
        TokenUsage(
            inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens,
            cacheCreationInputTokens: a.cacheCreationInputTokens + b.cacheCreationInputTokens,
            cacheReadInputTokens: a.cacheReadInputTokens + b.cacheReadInputTokens
        )
    }

    enum CodingKeys: String, CodingKey {
        case inputTokens = "input_tokens"
        case outputTokens = "output_tokens"
        case cacheCreationInputTokens = "cache_creation_input_tokens"
        case cacheReadInputTokens = "cache_read_input_tokens"
    }
}

/// A conversation: one agent session in one working directory.
public struct Conversation: Codable, Hashable, Sendable {
    public var id: String
    public var title: String
    /// Whether the title was set by a person (then it is never replaced by a generated one).
    public var titleIsCustom: Bool
    /// Canonical working directory, inside a workspace root.
    public var cwd: String
    /// Backend name (`claude`).
    public var backend: String
    public var model: String?
    public var permissionMode: String?
    public var pinned: Bool
    public var archived: Bool
    public var createdAt: String
    public var updatedAt: String
    /// Time of the last message or turn change: the list is ordered by it, newest first.
    public var lastActivityAt: String
    /// The agent's own session id (`claude --resume <id>`), once known.
    public var sessionId: String?
    public var status: ConversationStatus
    /// Whether an agent process is running for it right now.
    public var processRunning: Bool
    /// Messages waiting for the running turn to end.
    public var queued: Int
    public var pendingApprovals: Int
    public var messageCount: Int
    public var totalCostUsd: Double
    public var usage: TokenUsage
    /// Start of the last message's text, for lists.
    public var lastMessagePreview: String?
    /// The agent CLI's version, as it reported it when it last started.
    public var agentVersion: String?
    /// The permission mode the agent CLI reports it is in now (it may differ from ``permissionMode``, which is what
    /// the conversation was created with: the agent can switch modes, e.g. leaving plan mode).
    public var agentPermissionMode: String?
    /// What "allow for this session" granted, oldest first; each can be revoked.
    public var sessionRules: [SessionRule]
    /// While ``status`` is `retrying`: the last retry the agent CLI reported.
    public var retry: APIRetry?

    public init(
        id: String, title: String, titleIsCustom: Bool = false, cwd: String, backend: String, model: String? = nil, permissionMode: String? = nil,
        pinned: Bool = false, archived: Bool = false, createdAt: String, updatedAt: String, lastActivityAt: String, sessionId: String? = nil,
        status: ConversationStatus = .idle, processRunning: Bool = false, queued: Int = 0, pendingApprovals: Int = 0, messageCount: Int = 0,
        totalCostUsd: Double = 0, usage: TokenUsage = TokenUsage(), lastMessagePreview: String? = nil, agentVersion: String? = nil,
        agentPermissionMode: String? = nil, sessionRules: [SessionRule] = [], retry: APIRetry? = nil
    ) {
        self.id = id
        self.title = title
        self.titleIsCustom = titleIsCustom
        self.cwd = cwd
        self.backend = backend
        self.model = model
        self.permissionMode = permissionMode
        self.pinned = pinned
        self.archived = archived
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastActivityAt = lastActivityAt
        self.sessionId = sessionId
        self.status = status
        self.processRunning = processRunning
        self.queued = queued
        self.pendingApprovals = pendingApprovals
        self.messageCount = messageCount
        self.totalCostUsd = totalCostUsd
        self.usage = usage
        self.lastMessagePreview = lastMessagePreview
        self.agentVersion = agentVersion
        self.agentPermissionMode = agentPermissionMode
        self.sessionRules = sessionRules
        self.retry = retry
    }

    enum CodingKeys: String, CodingKey {
        case id, title, cwd, backend, model, pinned, archived, status, queued, usage, retry
        case titleIsCustom = "title_is_custom"
        case permissionMode = "permission_mode"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case lastActivityAt = "last_activity_at"
        case sessionId = "session_id"
        case processRunning = "process_running"
        case pendingApprovals = "pending_approvals"
        case messageCount = "message_count"
        case totalCostUsd = "total_cost_usd"
        case lastMessagePreview = "last_message_preview"
        case agentVersion = "agent_version"
        case agentPermissionMode = "agent_permission_mode"
        case sessionRules = "session_rules"
    }
}

/// A page of a list, newest first for conversations and oldest first for messages.
public struct Page<Item: Codable & Hashable & Sendable>: Codable, Hashable, Sendable {
    public var items: [Item]
    public var hasMore: Bool
    /// Pass back as `cursor` (conversations) or `before` (messages) for the next page; opaque.
    public var nextCursor: String?
    /// Messages only: the conversation's last event id when the page was read. Subscribe to its event stream after it;
    /// an event may then repeat a message of the page (same `message_id`), none is missed.
    public var lastEventId: Int?

    public init(items: [Item], hasMore: Bool, nextCursor: String?, lastEventId: Int? = nil) {
        self.items = items
        self.hasMore = hasMore
        self.nextCursor = nextCursor
        self.lastEventId = lastEventId
    }

    enum CodingKeys: String, CodingKey {
        case items
        case hasMore = "has_more"
        case nextCursor = "next_cursor"
        case lastEventId = "last_event_id"
    }
}

public enum MessageRole: String, Codable, Hashable, Sendable {
    case user, assistant, system
}

/// A tool the agent called during a turn, with its real result once it has one.
public struct ToolCall: Codable, Hashable, Sendable {
    public var toolUseId: String
    public var name: String
    public var input: JSONValue
    /// The tool_result text, nil while the tool runs.
    public var output: String?
    public var isError: Bool?
    /// The approval this call waited for, if any.
    public var approvalId: String?

    public init(toolUseId: String, name: String, input: JSONValue, output: String? = nil, isError: Bool? = nil, approvalId: String? = nil) {
        self.toolUseId = toolUseId
        self.name = name
        self.input = input
        self.output = output
        self.isError = isError
        self.approvalId = approvalId
    }

    enum CodingKeys: String, CodingKey {
        case name, input, output
        case toolUseId = "tool_use_id"
        case isError = "is_error"
        case approvalId = "approval_id"
    }
}

/// A message of a conversation: what a person sent, or one finished segment of the agent's reply with the tools it
/// called after it.
public struct ChatMessage: Codable, Hashable, Sendable {
    public var id: String
    public var conversationId: String
    public var turnId: String?
    public var role: MessageRole
    public var text: String
    public var toolCalls: [ToolCall]
    public var createdAt: String
    /// Cost and tokens of the whole turn, on the turn's last assistant message once the turn completed.
    public var costUsd: Double?
    public var usage: TokenUsage?

    public init(
        id: String, conversationId: String, turnId: String?, role: MessageRole, text: String, toolCalls: [ToolCall] = [], createdAt: String,
        costUsd: Double? = nil, usage: TokenUsage? = nil
    ) {
        self.id = id
        self.conversationId = conversationId
        self.turnId = turnId
        self.role = role
        self.text = text
        self.toolCalls = toolCalls
        self.createdAt = createdAt
        self.costUsd = costUsd
        self.usage = usage
    }

    enum CodingKeys: String, CodingKey {
        case id, role, text, usage
        case conversationId = "conversation_id"
        case turnId = "turn_id"
        case toolCalls = "tool_calls"
        case createdAt = "created_at"
        case costUsd = "cost_usd"
    }
}

public enum TurnState: String, Codable, Hashable, Sendable {
    /// Accepted, waiting for the turn before it.
    case queued
    case running
    case complete
    /// Ended by an interrupt (or a steer).
    case interrupted
    /// The agent reported an error, crashed, or the server restarted during the turn.
    case error
}

/// One message sent to the agent and everything it did about it.
public struct Turn: Codable, Hashable, Sendable {
    public var id: String
    public var conversationId: String
    public var text: String
    public var state: TurnState
    public var createdAt: String
    public var startedAt: String?
    public var endedAt: String?
    public var sessionId: String?
    public var costUsd: Double?
    public var usage: TokenUsage?
    public var durationMs: Int?
    public var stopReason: String?
    public var error: String?
    /// Who started it: a message sent to the conversation, or the agent by itself (then ``text`` says what woke it).
    public var origin: TurnOrigin

    public init(
        id: String, conversationId: String, text: String, state: TurnState, createdAt: String, startedAt: String? = nil, endedAt: String? = nil,
        sessionId: String? = nil, costUsd: Double? = nil, usage: TokenUsage? = nil, durationMs: Int? = nil, stopReason: String? = nil,
        error: String? = nil, origin: TurnOrigin = .user
    ) {
        self.id = id
        self.conversationId = conversationId
        self.text = text
        self.state = state
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.sessionId = sessionId
        self.costUsd = costUsd
        self.usage = usage
        self.durationMs = durationMs
        self.stopReason = stopReason
        self.error = error
        self.origin = origin
    }

    enum CodingKeys: String, CodingKey {
        case id, text, state, usage, error, origin
        case conversationId = "conversation_id"
        case createdAt = "created_at"
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case sessionId = "session_id"
        case costUsd = "cost_usd"
        case durationMs = "duration_ms"
        case stopReason = "stop_reason"
    }
}

public enum ApprovalState: String, Codable, Hashable, Sendable {
    case pending
    case allowed
    case denied
    /// The turn ended (interrupt, crash, restart) before anyone answered.
    case cancelled
}

public enum ApprovalDecision: String, Codable, Hashable, Sendable, CaseIterable {
    /// Allow this call, with the original (or the given) input.
    case allow
    /// Allow this call, and calls matching the approval's ``Approval/sessionRule`` for the rest of the conversation
    /// (and nothing more: no permission mode, no directory).
    case allowSession = "allow_session"
    case deny
}

/// A tool call waiting for (or answered by) a person.
public struct Approval: Codable, Hashable, Sendable {
    public var id: String
    public var conversationId: String
    public var turnId: String
    public var toolUseId: String?
    public var toolName: String
    public var input: JSONValue
    /// The CLI's `permission_suggestions`, as it sent them, for information only: "allow for this session" grants
    /// ``sessionRule``, never these (they include permission modes and directories).
    public var suggestions: JSONValue
    /// What "allow for this session" grants: the narrowest rule covering this call.
    public var sessionRule: PermissionRule?
    /// The CLI's one-line description of the call (`description`), when it gave one.
    public var description: String?
    /// The tool's name as the CLI shows it (`display_name`).
    public var displayName: String?
    /// The path the call would touch, as the CLI names it when it asks (`blocked_path`; for 2.1.330 also inside the
    /// working directory).
    public var blockedPath: String?
    /// The CLI's `decision_reason`, when it gives one.
    public var reason: String?
    public var state: ApprovalState
    public var decision: ApprovalDecision?
    public var message: String?
    /// Who decided: a key id, `local` for a trusted loopback caller, `rule <id>` when a session rule allowed it, or
    /// `system` when cancelled.
    public var decidedBy: String?
    public var createdAt: String
    public var decidedAt: String?

    public init(
        id: String, conversationId: String, turnId: String, toolUseId: String?, toolName: String, input: JSONValue, suggestions: JSONValue = .array([]),
        sessionRule: PermissionRule? = nil, description: String? = nil, displayName: String? = nil, blockedPath: String? = nil, reason: String? = nil,
        state: ApprovalState = .pending, decision: ApprovalDecision? = nil, message: String? = nil, decidedBy: String? = nil, createdAt: String,
        decidedAt: String? = nil
    ) {
        self.id = id
        self.conversationId = conversationId
        self.turnId = turnId
        self.toolUseId = toolUseId
        self.toolName = toolName
        self.input = input
        self.suggestions = suggestions
        self.sessionRule = sessionRule
        self.description = description
        self.displayName = displayName
        self.blockedPath = blockedPath
        self.reason = reason
        self.state = state
        self.decision = decision
        self.message = message
        self.decidedBy = decidedBy
        self.createdAt = createdAt
        self.decidedAt = decidedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, input, suggestions, reason, state, decision, message, description
        case sessionRule = "session_rule"
        case displayName = "display_name"
        case blockedPath = "blocked_path"
        case conversationId = "conversation_id"
        case turnId = "turn_id"
        case toolUseId = "tool_use_id"
        case toolName = "tool_name"
        case decidedBy = "decided_by"
        case createdAt = "created_at"
        case decidedAt = "decided_at"
    }
}

// MARK: - Requests and responses

/// `POST /api/conversations`.
public struct CreateConversationRequest: Codable, Hashable, Sendable {
    public var title: String?
    public var cwd: String
    public var backend: String?
    public var model: String?
    public var permissionMode: String?

    public init(title: String? = nil, cwd: String, backend: String? = nil, model: String? = nil, permissionMode: String? = nil) {
        self.title = title
        self.cwd = cwd
        self.backend = backend
        self.model = model
        self.permissionMode = permissionMode
    }

    enum CodingKeys: String, CodingKey {
        case title, cwd, backend, model
        case permissionMode = "permission_mode"
    }
}

/// `PATCH /api/conversations/{id}`: only the fields given change.
public struct PatchConversationRequest: Codable, Hashable, Sendable {
    public var title: String?
    public var pinned: Bool?
    public var archived: Bool?

    public init(title: String? = nil, pinned: Bool? = nil, archived: Bool? = nil) {
        self.title = title
        self.pinned = pinned
        self.archived = archived
    }
}

public enum SendMode: String, Codable, Hashable, Sendable {
    /// Wait for the running turn to end (the default).
    case queue
    /// Interrupt the running turn and send this message next.
    case steer
}

/// `POST /api/conversations/{id}/messages`.
public struct SendMessageRequest: Codable, Hashable, Sendable {
    public var text: String
    public var mode: SendMode?

    public init(text: String, mode: SendMode? = nil) {
        self.text = text
        self.mode = mode
    }
}

/// `202` answer to ``SendMessageRequest``.
public struct SendMessageResponse: Codable, Hashable, Sendable {
    public var turnId: String
    /// 0 when the message is sent to the agent at once, else its place in the queue (1 = next).
    public var queuedPosition: Int

    public init(turnId: String, queuedPosition: Int) {
        self.turnId = turnId
        self.queuedPosition = queuedPosition
    }

    enum CodingKeys: String, CodingKey {
        case turnId = "turn_id"
        case queuedPosition = "queued_position"
    }
}

/// `POST /api/conversations/{id}/interrupt` answer.
public struct InterruptResponse: Codable, Hashable, Sendable {
    /// The turn being interrupted.
    public var turnId: String
    public init(turnId: String) { self.turnId = turnId }
    enum CodingKeys: String, CodingKey { case turnId = "turn_id" }
}

/// `POST /api/approvals/{id}`.
public struct ApprovalDecisionRequest: Codable, Hashable, Sendable {
    public var decision: ApprovalDecision
    /// Told to the agent with a deny.
    public var message: String?
    /// Replaces the tool's input with an allow.
    public var updatedInput: JSONValue?

    public init(decision: ApprovalDecision, message: String? = nil, updatedInput: JSONValue? = nil) {
        self.decision = decision
        self.message = message
        self.updatedInput = updatedInput
    }

    enum CodingKeys: String, CodingKey {
        case decision, message
        case updatedInput = "updated_input"
    }
}

/// `POST /api/approvals`: the same decision for several approvals.
public struct BatchApprovalRequest: Codable, Hashable, Sendable {
    public var ids: [String]
    public var decision: ApprovalDecision
    public var message: String?

    public init(ids: [String], decision: ApprovalDecision, message: String? = nil) {
        self.ids = ids
        self.decision = decision
        self.message = message
    }
}

/// One line of ``BatchApprovalResponse``.
public struct BatchApprovalResult: Codable, Hashable, Sendable {
    public var id: String
    /// The approval after the decision, when it was applied.
    public var approval: Approval?
    /// Why it was not applied (the error body of the single route).
    public var error: String?

    public init(id: String, approval: Approval?, error: String?) {
        self.id = id
        self.approval = approval
        self.error = error
    }
}

public struct BatchApprovalResponse: Codable, Hashable, Sendable {
    public var results: [BatchApprovalResult]
    public init(results: [BatchApprovalResult]) { self.results = results }
}

/// `GET /api/approvals`.
public struct ApprovalList: Codable, Hashable, Sendable {
    public var approvals: [Approval]
    public init(approvals: [Approval]) { self.approvals = approvals }
}
