import RalphAPI

/// Turns one stdout line of `claude -p --output-format stream-json --verbose` into ``AgentEvent`` values
/// (reference §3.2).
///
/// The decoder is lenient on purpose: the CLI's field lists change between versions, so it dispatches on `type` and
/// then `subtype`, reads only the fields it needs, and falls back to defaults for missing or mistyped ones. Anything
/// it does not understand comes out as ``AgentEvent/other(type:raw:)`` with the parsed line kept, and a line that
/// is not a JSON object as ``AgentEvent/notJSON(_:)``. It never traps on input.
public enum ClaudeStreamDecoder {
    /// How much of a non-JSON line ``AgentEvent/notJSON(_:)`` keeps (in bytes of the line).
    public static let notJSONPrefixBytes = 200

    /// Decodes one line (without its newline; a trailing `\r` or surrounding whitespace is fine).
    ///
    /// - Returns: nothing for a blank line; one output for most lines; one output per content block for
    ///   `assistant` lines.
    public static func decode(line: some Collection<UInt8>) -> [AgentEvent] {
        guard line.contains(where: { !isWhitespace($0) }) else { return [] }
        guard let value = try? JSONParser.parse(line), let object = value.objectValue else {
            return [.notJSON(String(decoding: line.prefix(notJSONPrefixBytes), as: UTF8.self))]
        }
        return decode(object: object, raw: value)
    }

    /// Decodes a line that is already parsed.
    public static func decode(_ value: JSONValue) -> [AgentEvent] {
        guard let object = value.objectValue else { return [.notJSON(JSONWriter.string(value))] }
        return decode(object: object, raw: value)
    }

    private static func decode(object: JSONObject, raw: JSONValue) -> [AgentEvent] {
        let type = object["type"]?.stringValue ?? ""
        let other = AgentEvent.other(type: type, raw: raw)
        switch type {
        case "system":
            return [system(object)]
        case "command_lifecycle":
            guard let uuid = object["command_uuid"]?.stringValue, let state = object["state"]?.stringValue else { return [other] }
            return [.lifecycle(commandUUID: uuid, state: state)]
        case "stream_event":
            return [streamEvent(object) ?? other]
        case "assistant":
            return assistant(object, other: other)
        case "user":
            return [user(object) ?? other]
        case "control_request":
            return [permissionRequest(object) ?? other]
        case "control_response":
            guard let response = object["response"]?.objectValue else { return [other] }
            return [
                .controlResponse(
                    requestID: response["request_id"]?.stringValue, success: response["subtype"]?.stringValue == "success",
                    error: response["error"]?.stringValue
                )
            ]
        case "result":
            return [.result(result(object))]
        default:
            return [other]
        }
    }

    /// A `system` line: `api_retry` and `task_notification` have cases of their own.
    private static func system(_ object: JSONObject) -> AgentEvent {
        let subtype = object["subtype"]?.stringValue ?? ""
        switch subtype {
        case "api_retry":
            return .apiRetry(
                attempt: object["attempt"]?.intValue ?? 0, maxRetries: object["max_retries"]?.intValue,
                error: object["error"]?.stringValue ?? object["error"].map(JSONWriter.string) ?? "unknown error", errorStatus: object["error_status"]?.intValue,
                retryDelayMs: object["retry_delay_ms"]?.intValue
            )
        case "task_notification":
            return .taskNotification(taskID: object["task_id"]?.stringValue, status: object["status"]?.stringValue, summary: object["summary"]?.stringValue)
        default:
            return .system(
                AgentSystem(
                    subtype: subtype, sessionID: object["session_id"]?.stringValue, model: object["model"]?.stringValue,
                    permissionMode: object["permissionMode"]?.stringValue, version: object["claude_code_version"]?.stringValue,
                    capabilities: strings(object["capabilities"]), status: object["status"]?.stringValue,
                    userMessageUUIDs: strings(object["user_message_uuids"]) ?? []
                )
            )
        }
    }

    /// The strings of an array; nil when it is not an array.
    private static func strings(_ value: JSONValue?) -> [String]? {
        guard case .array(let items)? = value else { return nil }
        return items.compactMap(\.stringValue)
    }

    /// A `content_block_delta` carrying a `text_delta`; nil for every other stream event.
    private static func streamEvent(_ object: JSONObject) -> AgentEvent? {
        guard let event = object["event"]?.objectValue, event["type"]?.stringValue == "content_block_delta",
            let delta = event["delta"]?.objectValue, delta["type"]?.stringValue == "text_delta", let text = delta["text"]?.stringValue
        else { return nil }
        return .textDelta(text: text, parentToolUseID: object["parent_tool_use_id"]?.stringValue)
    }

    /// One output per content block: text, tool_use (which needs an `id`), anything else as ``AgentEvent/other``.
    private static func assistant(_ object: JSONObject, other: AgentEvent) -> [AgentEvent] {
        let parent = object["parent_tool_use_id"]?.stringValue
        let message = object["message"]?.objectValue
        let messageID = message?["id"]?.stringValue
        switch message?["content"] {
        case .string(let text)?:
            return [.assistantText(messageID: messageID, text: text, parentToolUseID: parent)]
        case .array(let blocks)?:
            return blocks.map { block in
                let block = block.objectValue
                switch block?["type"]?.stringValue {
                case "text":
                    guard let text = block?["text"]?.stringValue else { return other }
                    return .assistantText(messageID: messageID, text: text, parentToolUseID: parent)
                case "tool_use":
                    guard let id = block?["id"]?.stringValue else { return other }
                    return .toolUse(
                        messageID: messageID, toolUseID: id, name: block?["name"]?.stringValue ?? "", input: block?["input"] ?? .object(JSONObject()),
                        parentToolUseID: parent
                    )
                default:
                    return other
                }
            }
        default:
            return [other]
        }
    }

    /// A plain-string `user` line, or its `tool_result` blocks; nil when there is neither.
    private static func user(_ object: JSONObject) -> AgentEvent? {
        switch object["message"]?.objectValue?["content"] {
        case .string(let text)?:
            return .userText(text)
        case .array(let blocks)?:
            let results = blocks.compactMap { block -> AgentToolResult? in
                guard let block = block.objectValue, block["type"]?.stringValue == "tool_result", let id = block["tool_use_id"]?.stringValue else {
                    return nil
                }
                return AgentToolResult(toolUseID: id, output: toolResultText(block["content"]), isError: block["is_error"]?.boolValue ?? false)
            }
            guard !results.isEmpty else { return nil }
            return .toolResults(results, parentToolUseID: object["parent_tool_use_id"]?.stringValue)
        default:
            return nil
        }
    }

    /// A tool_result's `content`: a string as is, the `text` of text blocks joined with newlines.
    static func toolResultText(_ content: JSONValue?) -> String {
        switch content {
        case .string(let text)?:
            return text
        case .array(let blocks)?:
            return blocks.compactMap { block -> String? in
                guard let block = block.objectValue, block["type"]?.stringValue == "text" else { return nil }
                return block["text"]?.stringValue
            }.joined(separator: "\n")
        default:
            return ""
        }
    }

    /// `control_request` `can_use_tool`; nil for other subtypes or without a `request_id` (it could not be answered).
    private static func permissionRequest(_ object: JSONObject) -> AgentEvent? {
        guard let requestID = object["request_id"]?.stringValue, let request = object["request"]?.objectValue,
            request["subtype"]?.stringValue == "can_use_tool"
        else { return nil }
        var suggestions = JSONValue.array([])
        if case .array(let list)? = request["permission_suggestions"] { suggestions = .array(list) }
        return .permissionRequest(
            AgentPermissionRequest(
                requestID: requestID, toolName: request["tool_name"]?.stringValue ?? "", input: request["input"] ?? .object(JSONObject()),
                toolUseID: request["tool_use_id"]?.stringValue, suggestions: suggestions, decisionReason: request["decision_reason"]?.stringValue,
                blockedPath: request["blocked_path"]?.stringValue, description: request["description"]?.stringValue,
                displayName: request["display_name"]?.stringValue
            )
        )
    }

    /// A `result` line. Without `is_error`, the error subtypes (`error_…`) count as errors.
    private static func result(_ object: JSONObject) -> AgentTurnResult {
        let subtype = object["subtype"]?.stringValue ?? ""
        let errors: [String]
        if case .array(let entries)? = object["errors"] {
            errors = entries.map { $0.stringValue ?? JSONWriter.string($0) }
        } else {
            errors = []
        }
        let denied: [String]
        if case .array(let entries)? = object["permission_denials"] {
            denied = entries.compactMap { $0.objectValue?["tool_name"]?.stringValue }
        } else {
            denied = []
        }
        return AgentTurnResult(
            subtype: subtype, isError: object["is_error"]?.boolValue ?? subtype.hasPrefix("error"), sessionID: object["session_id"]?.stringValue,
            durationMs: object["duration_ms"]?.intValue, totalCostUSD: object["total_cost_usd"]?.doubleValue, usage: TokenUsage(object["usage"]),
            numTurns: object["num_turns"]?.intValue, resultText: object["result"]?.stringValue, errors: errors,
            stopReason: object["stop_reason"]?.stringValue, deniedTools: denied, userMessageUUIDs: strings(object["user_message_uuids"]) ?? [],
            apiErrorStatus: object["api_error_status"]?.intValue
        )
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
