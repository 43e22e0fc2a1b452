import Foundation
import RalphAPI

/// The lines a turn prints, in the real CLI's shapes.
extension Turn {
    /// Starts a model request: takes in the user messages queued since the last one (replayed and reported
    /// `started`, as the CLI adds them to this request), then `status` `requesting` (with `--include-partial-messages`).
    mutating func announceRequest() {
        guard !requestAnnounced else { return }
        requestAnnounced = true
        if agent == nil && completedRequests > 0 {
            for message in conversation.inbox.drainQueue() {
                conversation.store(message)
                drained.append(message)
                replay(message)
                lifecycle(message, "started")
            }
        }
        if partials { output.emit(Lines.requesting(sessionID: conversation.sessionID, userMessageUUIDs: userMessageUUIDs)) }
    }

    /// With `--replay-user-messages`, echoes a user message back.
    func replay(_ message: UserMessage) {
        guard conversation.options.replayUserMessages else { return }
        output.emit([
            "type": "user", "message": message.line["message"] ?? .null, "session_id": sessionID, "parent_tool_use_id": nil,
            "uuid": .string(message.uuid ?? Lines.uuid()), "timestamp": .string(Timestamp.format(message.received)), "isReplay": true,
        ])
    }

    func lifecycle(_ message: UserMessage, _ state: String) {
        if let uuid = message.uuid { output.emit(Lines.lifecycle(uuid, state, sessionID: conversation.sessionID), paced: false) }
    }

    /// The `user_message_uuid(s)` fields, for the lines that name the turn's user messages.
    func tag(_ object: inout JSONObject) {
        let uuids = userMessageUUIDs
        guard let first = uuids.first else { return }
        object["user_message_uuid"] = .string(first)
        object["user_message_uuids"] = Lines.strings(uuids)
    }

    mutating func beginMessage() {
        guard messageID == nil else { return }
        announceRequest()
        let id = "msg_" + Lines.randomID()
        messageID = id
        blockIndex = 0
        var line = JSONObject([
            ("type", "stream_event"),
            (
                "event",
                [
                    "type": "message_start",
                    "message": [
                        "id": .string(id), "type": "message", "role": "assistant", "model": .string(model), "content": [], "stop_reason": nil,
                        "stop_sequence": nil, "usage": ["input_tokens": 12, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0],
                    ],
                ]
            ),
            ("session_id", sessionID), ("parent_tool_use_id", nil), ("uuid", .string(Lines.uuid())),
        ])
        if tagMessageStart { tag(&line) }
        tagMessageStart = false
        if partials { output.emit(.object(line)) }
    }

    mutating func endMessage(stopReason: String?) {
        guard messageID != nil else { return }
        messageID = nil
        requestAnnounced = false
        completedRequests += 1
        streamEvent([
            "type": "message_delta", "delta": ["stop_reason": stopReason.map { .string($0) } ?? .null, "stop_sequence": nil],
            "usage": ["output_tokens": .int(outputTokens)],
        ])
        streamEvent(["type": "message_stop"])
    }

    func streamEvent(_ event: JSONValue) {
        guard partials else { return }
        output.emit(["type": "stream_event", "event": event, "session_id": sessionID, "parent_tool_use_id": nil, "uuid": .string(Lines.uuid())])
    }

    mutating func assistant(_ block: JSONValue) {
        var line = JSONObject([
            ("type", "assistant"),
            (
                "message",
                [
                    "id": .string(messageID ?? ""), "type": "message", "role": "assistant", "model": .string(model), "content": [block], "stop_reason": nil,
                    "stop_sequence": nil, "usage": ["input_tokens": 12, "output_tokens": .int(max(1, outputTokens))],
                ]
            ),
            ("parent_tool_use_id", nil), ("session_id", sessionID), ("uuid", .string(Lines.uuid())), ("timestamp", .string(Timestamp.now())),
        ])
        if tagAssistant { tag(&line) }
        tagAssistant = false
        output.emit(.object(line))
        conversation.sessions.append(.object(line), to: conversation.sessionID)
    }

    /// A `user` line with one `tool_result`. `content` is a string, or blocks; `meta` is the `tool_result_meta` entry
    /// without its `id` (how the permission was decided), when known.
    func toolResult(toolUseID: String, content: JSONValue, isError: Bool, toolUseResult: JSONValue, meta: JSONValue?) {
        var line = JSONObject([
            ("type", "user"),
            (
                "message",
                [
                    "role": "user",
                    "content": [["tool_use_id": .string(toolUseID), "type": "tool_result", "content": content, "is_error": .bool(isError)]],
                ]
            ),
            ("parent_tool_use_id", nil), ("session_id", sessionID), ("uuid", .string(Lines.uuid())), ("timestamp", .string(Timestamp.now())),
            ("tool_use_result", toolUseResult),
        ])
        if case .object(var meta)? = meta {
            meta.members.insert(("id", .string(toolUseID)), at: 0)
            line["tool_result_meta"] = [.object(meta)]
        }
        output.emit(.object(line))
        conversation.sessions.append(.object(line), to: conversation.sessionID)
    }

    /// Writes the turn's `result` line. An uncharged turn (interrupted before any model request ended) reports no
    /// usage of its own.
    func finish(
        subtype: String, stopReason: String?, resultText: String? = nil, errors: [String]? = nil, terminalReason: String?, charged: Bool = true
    ) {
        let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
        let usage = charged ? Usage(inputTokens: 12 * apiCalls, outputTokens: max(1, outputTokens), cacheReadTokens: 1000 * apiCalls, costUSD: costUSD) : nil
        let totals = conversation.record(usage, model: model)
        var result = JSONObject([
            ("type", "result"), ("subtype", .string(subtype)), ("is_error", .bool(subtype != "success")), ("duration_ms", .int(milliseconds)),
            ("duration_api_ms", .int(charged ? milliseconds / 2 : 0)), ("num_turns", .int(apiCalls)),
        ])
        if let resultText { result["result"] = .string(resultText) }
        result["stop_reason"] = stopReason.map { .string($0) } ?? .null
        result["session_id"] = sessionID
        result["total_cost_usd"] = .double(totals.totalCostUSD)
        let own = usage ?? Usage()
        result["usage"] = Lines.usage(input: own.inputTokens, output: own.outputTokens, cacheRead: own.cacheReadTokens)
        result["modelUsage"] = totals.modelUsage
        result["permission_denials"] = .array(denials)
        if let terminalReason { result["terminal_reason"] = .string(terminalReason) }
        if let errors { result["errors"] = Lines.strings(errors) }
        result["uuid"] = .string(Lines.uuid())
        tag(&result)
        if let agent {
            result["origin"] = ["kind": "task-notification", "producer": "session-task", "runId": .string(agent.taskID)]
        }
        result["result_index"] = .int(totals.index)
        result["model_usage_since_last_result"] = .object(JSONObject(usage.map { [(model, $0.perModel)] } ?? []))
        output.finalResult(.object(result))
    }
}
