import Foundation

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

/// An event of a conversation, as the driver produces it and as clients decode it.
public enum ChatEvent: Hashable, Sendable {
    case turnStart(TurnStartEvent)
    case chunk(ChunkEvent)
    case segmentEnd(SegmentEndEvent)
    case toolStart(ToolEvent)
    case toolEnd(ToolEvent)
    case permissionRequired(PermissionRequiredEvent)
    case permissionResolved(PermissionResolvedEvent)
    case complete(CompleteEvent)
    case error(ChatErrorEvent)
    case titleUpdate(TitleUpdateEvent)
    case status(StatusEvent)
    case autoReply(AutoReplyProgress)
    case permissions(PermissionsEvent)

    public var name: String {
        switch self {
        case .turnStart: ChatEventName.turnStart
        case .chunk: ChatEventName.chunk
        case .segmentEnd: ChatEventName.segmentEnd
        case .toolStart: ChatEventName.toolStart
        case .toolEnd: ChatEventName.toolEnd
        case .permissionRequired: ChatEventName.permissionRequired
        case .permissionResolved: ChatEventName.permissionResolved
        case .complete: ChatEventName.complete
        case .error: ChatEventName.error
        case .titleUpdate: ChatEventName.titleUpdate
        case .status: ChatEventName.status
        case .autoReply: ChatEventName.autoReply
        case .permissions: ChatEventName.permissions
        }
    }

    /// The event's data, encoded the way it goes on the wire.
    public func encodedData(with encoder: JSONEncoder) throws -> Data {
        switch self {
        case .turnStart(let e): try encoder.encode(e)
        case .chunk(let e): try encoder.encode(e)
        case .segmentEnd(let e): try encoder.encode(e)
        case .toolStart(let e), .toolEnd(let e): try encoder.encode(e)
        case .permissionRequired(let e): try encoder.encode(e)
        case .permissionResolved(let e): try encoder.encode(e)
        case .complete(let e): try encoder.encode(e)
        case .error(let e): try encoder.encode(e)
        case .titleUpdate(let e): try encoder.encode(e)
        case .status(let e): try encoder.encode(e)
        case .autoReply(let e): try encoder.encode(e)
        case .permissions(let e): try encoder.encode(e)
        }
    }

    /// Decodes an event from its SSE name and data; nil for a name this version does not know.
    public static func decode(name: String, data: Data, decoder: JSONDecoder = JSONDecoder()) throws -> ChatEvent? {
        switch name {
        case ChatEventName.turnStart: .turnStart(try decoder.decode(TurnStartEvent.self, from: data))
        case ChatEventName.chunk: .chunk(try decoder.decode(ChunkEvent.self, from: data))
        case ChatEventName.segmentEnd: .segmentEnd(try decoder.decode(SegmentEndEvent.self, from: data))
        case ChatEventName.toolStart: .toolStart(try decoder.decode(ToolEvent.self, from: data))
        case ChatEventName.toolEnd: .toolEnd(try decoder.decode(ToolEvent.self, from: data))
        case ChatEventName.permissionRequired: .permissionRequired(try decoder.decode(PermissionRequiredEvent.self, from: data))
        case ChatEventName.permissionResolved: .permissionResolved(try decoder.decode(PermissionResolvedEvent.self, from: data))
        case ChatEventName.complete: .complete(try decoder.decode(CompleteEvent.self, from: data))
        case ChatEventName.error: .error(try decoder.decode(ChatErrorEvent.self, from: data))
        case ChatEventName.titleUpdate: .titleUpdate(try decoder.decode(TitleUpdateEvent.self, from: data))
        case ChatEventName.status: .status(try decoder.decode(StatusEvent.self, from: data))
        case ChatEventName.autoReply: .autoReply(try decoder.decode(AutoReplyProgress.self, from: data))
        case ChatEventName.permissions: .permissions(try decoder.decode(PermissionsEvent.self, from: data))
        default: nil
        }
    }
}

public struct TurnStartEvent: Codable, Hashable, Sendable {
    public var turnId: String
    public var text: String
    /// The user message stored for this turn (none for a turn the agent started by itself).
    public var messageId: String?
    /// `agent` when the agent CLI started the turn by itself (``text`` then says what woke it); absent for a message
    /// sent to the conversation.
    public var origin: TurnOrigin?
    public init(turnId: String, text: String, messageId: String?, origin: TurnOrigin? = nil) {
        self.turnId = turnId
        self.text = text
        self.messageId = messageId
        self.origin = origin
    }
    enum CodingKeys: String, CodingKey {
        case text, origin
        case turnId = "turn_id"
        case messageId = "message_id"
    }
}

/// A real text delta of the agent's reply.
public struct ChunkEvent: Codable, Hashable, Sendable {
    public var turnId: String
    public var text: String
    public init(turnId: String, text: String) {
        self.turnId = turnId
        self.text = text
    }
    enum CodingKeys: String, CodingKey {
        case text
        case turnId = "turn_id"
    }
}

/// The text streamed since the last segment is now the stored message `messageId`.
public struct SegmentEndEvent: Codable, Hashable, Sendable {
    public var turnId: String
    public var messageId: String
    public init(turnId: String, messageId: String) {
        self.turnId = turnId
        self.messageId = messageId
    }
    enum CodingKeys: String, CodingKey {
        case turnId = "turn_id"
        case messageId = "message_id"
    }
}

/// `tool_start` (no output yet) and `tool_end` (with the real tool_result).
public struct ToolEvent: Codable, Hashable, Sendable {
    public var turnId: String
    public var toolUseId: String
    public var name: String
    public var input: JSONValue
    public var output: String?
    public var isError: Bool?
    /// The message the call is stored with.
    public var messageId: String?

    public init(turnId: String, toolUseId: String, name: String, input: JSONValue, output: String? = nil, isError: Bool? = nil, messageId: String? = nil) {
        self.turnId = turnId
        self.toolUseId = toolUseId
        self.name = name
        self.input = input
        self.output = output
        self.isError = isError
        self.messageId = messageId
    }

    enum CodingKeys: String, CodingKey {
        case name, input, output
        case turnId = "turn_id"
        case toolUseId = "tool_use_id"
        case isError = "is_error"
        case messageId = "message_id"
    }
}

public struct PermissionRequiredEvent: Codable, Hashable, Sendable {
    public var approvalId: String
    public var turnId: String
    public var toolUseId: String?
    public var toolName: String
    public var input: JSONValue
    /// The CLI's suggestions as sent, for information only; "allow for this session" grants ``sessionRule``.
    public var suggestions: JSONValue
    public var expiresAt: String?
    /// What "allow for this session" grants.
    public var sessionRule: PermissionRule?
    public var description: String?
    public var displayName: String?
    public var blockedPath: String?
    public var reason: String?

    public init(
        approvalId: String, turnId: String, toolUseId: String?, toolName: String, input: JSONValue, suggestions: JSONValue, expiresAt: String? = nil,
        sessionRule: PermissionRule? = nil, description: String? = nil, displayName: String? = nil, blockedPath: String? = nil, reason: String? = nil
    ) {
        self.approvalId = approvalId
        self.turnId = turnId
        self.toolUseId = toolUseId
        self.toolName = toolName
        self.input = input
        self.suggestions = suggestions
        self.expiresAt = expiresAt
        self.sessionRule = sessionRule
        self.description = description
        self.displayName = displayName
        self.blockedPath = blockedPath
        self.reason = reason
    }

    /// The event announcing `approval`.
    public init(_ approval: Approval) {
        self.init(
            approvalId: approval.id, turnId: approval.turnId, toolUseId: approval.toolUseId, toolName: approval.toolName, input: approval.input,
            suggestions: approval.suggestions, sessionRule: approval.sessionRule, description: approval.description, displayName: approval.displayName,
            blockedPath: approval.blockedPath, reason: approval.reason
        )
    }

    enum CodingKeys: String, CodingKey {
        case input, suggestions, description, reason
        case sessionRule = "session_rule"
        case displayName = "display_name"
        case blockedPath = "blocked_path"
        case approvalId = "approval_id"
        case turnId = "turn_id"
        case toolUseId = "tool_use_id"
        case toolName = "tool_name"
        case expiresAt = "expires_at"
    }
}

public struct PermissionResolvedEvent: Codable, Hashable, Sendable {
    public var approvalId: String
    /// `allow`, `allow_session`, `deny`, or `cancelled` when the turn ended first.
    public var decision: String
    public var by: String?
    public var message: String?

    public init(approvalId: String, decision: String, by: String?, message: String? = nil) {
        self.approvalId = approvalId
        self.decision = decision
        self.by = by
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case decision, by, message
        case approvalId = "approval_id"
    }
}

public struct CompleteEvent: Codable, Hashable, Sendable {
    public var turnId: String
    public var sessionId: String?
    public var costUsd: Double?
    public var usage: TokenUsage
    public var durationMs: Int?
    /// `end_turn`, `interrupted`, `max_turns`, … as the agent reported it.
    public var stopReason: String?
    /// The turn's last stored assistant message, if it wrote any text after its last tool.
    public var messageId: String?

    public init(turnId: String, sessionId: String?, costUsd: Double?, usage: TokenUsage, durationMs: Int?, stopReason: String?, messageId: String?) {
        self.turnId = turnId
        self.sessionId = sessionId
        self.costUsd = costUsd
        self.usage = usage
        self.durationMs = durationMs
        self.stopReason = stopReason
        self.messageId = messageId
    }

    enum CodingKeys: String, CodingKey {
        case usage
        case turnId = "turn_id"
        case sessionId = "session_id"
        case costUsd = "cost_usd"
        case durationMs = "duration_ms"
        case stopReason = "stop_reason"
        case messageId = "message_id"
    }
}

public struct ChatErrorEvent: Codable, Hashable, Sendable {
    public var turnId: String?
    public var message: String
    /// True when sending another message can carry on (the process is restarted with `--resume`).
    public var recoverable: Bool

    public init(turnId: String?, message: String, recoverable: Bool) {
        self.turnId = turnId
        self.message = message
        self.recoverable = recoverable
    }

    enum CodingKeys: String, CodingKey {
        case message, recoverable
        case turnId = "turn_id"
    }
}

public struct TitleUpdateEvent: Codable, Hashable, Sendable {
    public var title: String
    public init(title: String) { self.title = title }
}

/// The conversation's status changed.
public struct StatusEvent: Codable, Hashable, Sendable {
    public var status: ConversationStatus
    public var turnId: String?
    /// With `stalled`: seconds since the agent's last output.
    public var silentSecs: Int?
    public var queued: Int
    /// With `retrying`: the retry the agent CLI reported.
    public var retry: APIRetry?

    public init(status: ConversationStatus, turnId: String?, silentSecs: Int? = nil, queued: Int, retry: APIRetry? = nil) {
        self.status = status
        self.turnId = turnId
        self.silentSecs = silentSecs
        self.queued = queued
        self.retry = retry
    }

    enum CodingKeys: String, CodingKey {
        case status, queued, retry
        case turnId = "turn_id"
        case silentSecs = "silent_secs"
    }
}

/// Data of `conversation.removed` on the global stream.
public struct ConversationRemoved: Codable, Hashable, Sendable {
    public var id: String
    public init(id: String) { self.id = id }
}
