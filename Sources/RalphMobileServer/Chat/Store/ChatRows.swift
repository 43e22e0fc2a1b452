import Foundation
import SQLStore
import RalphAPI

/// The SQL of each wire type: upserts that keep a row's `position`/`seq`, and rows back to values.
///
/// Columns are written and read by name, explicitly, so the schema in ``ChatSchema`` is the whole story. Decoding
/// never traps: a value the wire types cannot hold (an unknown enum spelling, bad JSON) throws
/// ``ChatStore/StoreError/corruptRow(table:id:reason:)``.
enum ChatRows {
    // MARK: - Upserts

    static func upsert(_ c: Conversation, _ db: any SQLConnection) async throws {
        try await db.execute(
            """
                INSERT INTO conversations (
                    id, title, title_is_custom, cwd, backend, model, permission_mode, pinned, archived, created_at,
                    updated_at, last_activity_at, session_id, status, process_running, queued, pending_approvals,
                    message_count, total_cost_usd, usage, last_message_preview, agent_version, agent_permission_mode,
                    session_rules, retry, host_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET
                    title = excluded.title, title_is_custom = excluded.title_is_custom, cwd = excluded.cwd,
                    backend = excluded.backend, model = excluded.model, permission_mode = excluded.permission_mode,
                    pinned = excluded.pinned, archived = excluded.archived, created_at = excluded.created_at,
                    updated_at = excluded.updated_at, last_activity_at = excluded.last_activity_at,
                    session_id = excluded.session_id, status = excluded.status, process_running = excluded.process_running,
                    queued = excluded.queued, pending_approvals = excluded.pending_approvals,
                    message_count = excluded.message_count, total_cost_usd = excluded.total_cost_usd,
                    usage = excluded.usage, last_message_preview = excluded.last_message_preview,
                    agent_version = excluded.agent_version, agent_permission_mode = excluded.agent_permission_mode,
                    session_rules = excluded.session_rules, retry = excluded.retry, host_id = excluded.host_id
                """,
            arguments: [
                c.id, c.title, c.titleIsCustom, c.cwd, c.backend, c.model, c.permissionMode, c.pinned, c.archived, c.createdAt,
                c.updatedAt, c.lastActivityAt, c.sessionId, c.status.rawValue, c.processRunning, c.queued, c.pendingApprovals,
                c.messageCount, c.totalCostUsd, try usageText(c.usage), c.lastMessagePreview, c.agentVersion, c.agentPermissionMode,
                try jsonText(c.sessionRules), try c.retry.map(jsonText), c.hostId,
            ]
        )
    }

    static func upsert(_ m: ChatMessage, _ db: any SQLConnection) async throws {
        try await db.execute(
            """
                INSERT INTO messages (id, conversation_id, turn_id, role, text, tool_calls, created_at, cost_usd, usage)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET
                    conversation_id = excluded.conversation_id, turn_id = excluded.turn_id, role = excluded.role,
                    text = excluded.text, tool_calls = excluded.tool_calls, created_at = excluded.created_at,
                    cost_usd = excluded.cost_usd, usage = excluded.usage
                """,
            arguments: [
                m.id, m.conversationId, m.turnId, m.role.rawValue, m.text, toolCallsText(m.toolCalls), m.createdAt, m.costUsd,
                try m.usage.map(usageText),
            ]
        )
    }

    static func upsert(_ t: Turn, _ db: any SQLConnection) async throws {
        try await db.execute(
            """
                INSERT INTO turns (
                    id, conversation_id, text, state, created_at, started_at, ended_at, session_id, cost_usd, usage,
                    duration_ms, stop_reason, error, origin)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET
                    conversation_id = excluded.conversation_id, text = excluded.text, state = excluded.state,
                    created_at = excluded.created_at, started_at = excluded.started_at, ended_at = excluded.ended_at,
                    session_id = excluded.session_id, cost_usd = excluded.cost_usd, usage = excluded.usage,
                    duration_ms = excluded.duration_ms, stop_reason = excluded.stop_reason, error = excluded.error,
                    origin = excluded.origin
                """,
            arguments: [
                t.id, t.conversationId, t.text, t.state.rawValue, t.createdAt, t.startedAt, t.endedAt, t.sessionId, t.costUsd,
                try t.usage.map(usageText), t.durationMs, t.stopReason, t.error, t.origin.rawValue,
            ]
        )
    }

    static func upsert(_ a: Approval, _ db: any SQLConnection) async throws {
        try await db.execute(
            """
                INSERT INTO approvals (
                    id, conversation_id, turn_id, tool_use_id, tool_name, input, suggestions, reason, state, decision,
                    message, decided_by, created_at, decided_at, session_rule, description, display_name, blocked_path, diffs)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET
                    conversation_id = excluded.conversation_id, turn_id = excluded.turn_id,
                    tool_use_id = excluded.tool_use_id, tool_name = excluded.tool_name, input = excluded.input,
                    suggestions = excluded.suggestions, reason = excluded.reason, state = excluded.state,
                    decision = excluded.decision, message = excluded.message, decided_by = excluded.decided_by,
                    created_at = excluded.created_at, decided_at = excluded.decided_at, session_rule = excluded.session_rule,
                    description = excluded.description, display_name = excluded.display_name, blocked_path = excluded.blocked_path,
                    diffs = excluded.diffs
                """,
            arguments: [
                a.id, a.conversationId, a.turnId, a.toolUseId, a.toolName, JSONWriter.string(a.input), JSONWriter.string(a.suggestions),
                a.reason, a.state.rawValue, a.decision?.rawValue, a.message, a.decidedBy, a.createdAt, a.decidedAt,
                try a.sessionRule.map(jsonText), a.description, a.displayName, a.blockedPath, try a.diffs.map(jsonText),
            ]
        )
    }

    // MARK: - Rows to values

    static func conversation(_ row: SQLRow) throws -> Conversation {
        let id: String = try row.decode(forColumn: "id")
        let table = "conversations"
        return Conversation(
            id: id, title: try row.decode(forColumn: "title"), titleIsCustom: try row.decode(forColumn: "title_is_custom"),
            cwd: try row.decode(forColumn: "cwd"), backend: try row.decode(forColumn: "backend"),
            model: try row.decode(forColumn: "model"), permissionMode: try row.decode(forColumn: "permission_mode"),
            pinned: try row.decode(forColumn: "pinned"), archived: try row.decode(forColumn: "archived"),
            createdAt: try row.decode(forColumn: "created_at"), updatedAt: try row.decode(forColumn: "updated_at"),
            lastActivityAt: try row.decode(forColumn: "last_activity_at"), sessionId: try row.decode(forColumn: "session_id"),
            status: try enumValue(row, "status", table: table, id: id), processRunning: try row.decode(forColumn: "process_running"),
            queued: try row.decode(forColumn: "queued"), pendingApprovals: try row.decode(forColumn: "pending_approvals"),
            messageCount: try row.decode(forColumn: "message_count"), totalCostUsd: try row.decode(forColumn: "total_cost_usd"),
            usage: try usage(row, "usage", table: table, id: id) ?? TokenUsage(),
            lastMessagePreview: try row.decode(forColumn: "last_message_preview"), agentVersion: try row.decode(forColumn: "agent_version"),
            agentPermissionMode: try row.decode(forColumn: "agent_permission_mode"),
            sessionRules: try codable(row, "session_rules", table: table, id: id) ?? [], retry: try codable(row, "retry", table: table, id: id),
            hostId: try row.decode(forColumn: "host_id")
        )
    }

    static func message(_ row: SQLRow) throws -> ChatMessage {
        let id: String = try row.decode(forColumn: "id")
        let table = "messages"
        return ChatMessage(
            id: id, conversationId: try row.decode(forColumn: "conversation_id"), turnId: try row.decode(forColumn: "turn_id"),
            role: try enumValue(row, "role", table: table, id: id), text: try row.decode(forColumn: "text"),
            toolCalls: try toolCalls(row, table: table, id: id), createdAt: try row.decode(forColumn: "created_at"),
            costUsd: try row.decode(forColumn: "cost_usd"), usage: try usage(row, "usage", table: table, id: id)
        )
    }

    static func turn(_ row: SQLRow) throws -> Turn {
        let id: String = try row.decode(forColumn: "id")
        let table = "turns"
        return Turn(
            id: id, conversationId: try row.decode(forColumn: "conversation_id"), text: try row.decode(forColumn: "text"),
            state: try enumValue(row, "state", table: table, id: id), createdAt: try row.decode(forColumn: "created_at"),
            startedAt: try row.decode(forColumn: "started_at"), endedAt: try row.decode(forColumn: "ended_at"),
            sessionId: try row.decode(forColumn: "session_id"), costUsd: try row.decode(forColumn: "cost_usd"),
            usage: try usage(row, "usage", table: table, id: id), durationMs: try row.decode(forColumn: "duration_ms"),
            stopReason: try row.decode(forColumn: "stop_reason"), error: try row.decode(forColumn: "error"),
            origin: try enumValue(row, "origin", table: table, id: id)
        )
    }

    static func approval(_ row: SQLRow) throws -> Approval {
        let id: String = try row.decode(forColumn: "id")
        let table = "approvals"
        let decision: String? = try row.decode(forColumn: "decision")
        return Approval(
            id: id, conversationId: try row.decode(forColumn: "conversation_id"), turnId: try row.decode(forColumn: "turn_id"),
            toolUseId: try row.decode(forColumn: "tool_use_id"), toolName: try row.decode(forColumn: "tool_name"),
            input: try json(row, "input", table: table, id: id), suggestions: try json(row, "suggestions", table: table, id: id),
            sessionRule: try codable(row, "session_rule", table: table, id: id), description: try row.decode(forColumn: "description"),
            displayName: try row.decode(forColumn: "display_name"), blockedPath: try row.decode(forColumn: "blocked_path"),
            reason: try row.decode(forColumn: "reason"), diffs: try codable(row, "diffs", table: table, id: id),
            state: try enumValue(row, "state", table: table, id: id),
            decision: try decision.map { raw in
                guard let value = ApprovalDecision(rawValue: raw) else {
                    throw ChatStore.StoreError.corruptRow(table: table, id: id, reason: "unknown decision '\(raw)'")
                }
                return value
            },
            message: try row.decode(forColumn: "message"), decidedBy: try row.decode(forColumn: "decided_by"),
            createdAt: try row.decode(forColumn: "created_at"), decidedAt: try row.decode(forColumn: "decided_at")
        )
    }

    static func event(_ row: SQLRow) throws -> StoredChatEvent {
        let data: Data = try row.decode(forColumn: "data")
        return StoredChatEvent(
            conversationID: try row.decode(forColumn: "conversation_id"), seq: try row.decode(forColumn: "seq"),
            name: try row.decode(forColumn: "name"), data: [UInt8](data), createdAt: try row.decode(forColumn: "created_at")
        )
    }

    // MARK: - Column codecs

    /// A raw-value enum column; an unknown spelling is a corrupt row.
    private static func enumValue<E: RawRepresentable>(_ row: SQLRow, _ column: String, table: String, id: String) throws -> E
    where E.RawValue == String {
        let raw: String = try row.decode(forColumn: column)
        guard let value = E(rawValue: raw) else {
            throw ChatStore.StoreError.corruptRow(table: table, id: id, reason: "unknown \(column) '\(raw)'")
        }
        return value
    }

    /// ``TokenUsage`` as stored: its wire JSON.
    static func usageText(_ usage: TokenUsage) throws -> String {
        try jsonText(usage)
    }

    private static func usage(_ row: SQLRow, _ column: String, table: String, id: String) throws -> TokenUsage? {
        try codable(row, column, table: table, id: id)
    }

    /// A value stored as its wire JSON (``WireJSON``: sorted keys, unescaped slashes).
    static func jsonText(_ value: some Encodable) throws -> String {
        String(decoding: try WireJSON.encode(value), as: UTF8.self)
    }

    /// A column holding a value's wire JSON, or NULL.
    private static func codable<T: Decodable>(_ row: SQLRow, _ column: String, table: String, id: String) throws -> T? {
        guard let text: String = try row.decode(forColumn: column) else { return nil }
        do {
            return try WireJSON.decode(T.self, from: Data(text.utf8))
        } catch {
            throw ChatStore.StoreError.corruptRow(table: table, id: id, reason: "\(column) is not a valid \(T.self): \(error)")
        }
    }

    /// A ``JSONValue`` column, parsed with the order-keeping parser so objects come back exactly as written.
    private static func json(_ row: SQLRow, _ column: String, table: String, id: String) throws -> JSONValue {
        let text: String = try row.decode(forColumn: column)
        do {
            return try JSONParser.parse(text)
        } catch {
            throw ChatStore.StoreError.corruptRow(table: table, id: id, reason: "\(column) is not JSON: \(error)")
        }
    }

    /// Tool calls as a JSON array of their wire objects, written through ``JSONValue`` so each call's `input` keeps
    /// its key order (`Codable` would sort it on the way back).
    static func toolCallsText(_ calls: [ToolCall]) -> String {
        JSONWriter.string(
            .array(
                calls.map { call in
                    var object = JSONObject()
                    object["tool_use_id"] = .string(call.toolUseId)
                    object["name"] = .string(call.name)
                    object["input"] = call.input
                    object["output"] = call.output.map(JSONValue.string)
                    object["is_error"] = call.isError.map(JSONValue.bool)
                    object["approval_id"] = call.approvalId.map(JSONValue.string)
                    if let diffs = call.diffs, let encoded = try? JSONParser.parse(WireJSON.encode(diffs)) { object["diffs"] = encoded }
                    return .object(object)
                }
            )
        )
    }

    private static func toolCalls(_ row: SQLRow, table: String, id: String) throws -> [ToolCall] {
        func corrupt(_ reason: String) -> ChatStore.StoreError { .corruptRow(table: table, id: id, reason: "tool_calls: \(reason)") }
        guard case .array(let items) = try json(row, "tool_calls", table: table, id: id) else { throw corrupt("not an array") }
        return try items.map { item in
            guard let object = item.objectValue, let toolUseId = object["tool_use_id"]?.stringValue, let name = object["name"]?.stringValue,
                let input = object["input"]
            else { throw corrupt("a call lacks tool_use_id, name or input") }
            func optional<T>(_ key: String, _ read: (JSONValue) -> T?) throws -> T? {
                guard let value = object[key], !value.isNull else { return nil }
                guard let result = read(value) else { throw corrupt("\(key) has the wrong type") }
                return result
            }
            let diffs = try optional("diffs") { value in try? WireJSON.decode([FileDiff].self, from: Data(JSONWriter.bytes(value))) }
            return ToolCall(
                toolUseId: toolUseId, name: name, input: input, output: try optional("output", \.stringValue),
                isError: try optional("is_error", \.boolValue), approvalId: try optional("approval_id", \.stringValue), diffs: diffs
            )
        }
    }
}
