import Foundation
import RalphAPI

/// Builders for the protocol lines that several parts of the double print, with the real CLI's field names.
enum Lines {
    /// `{"type":"command_lifecycle","command_uuid":…,"state":…}`: what became of a stdin `user` line that carried a
    /// `uuid` (`queued`, `started`, `completed`, `cancelled`).
    static func lifecycle(_ commandUUID: String, _ state: String, sessionID: String) -> JSONValue {
        [
            "type": "command_lifecycle", "command_uuid": .string(commandUUID), "state": .string(state), "uuid": .string(uuid()),
            "session_id": .string(sessionID),
        ]
    }

    /// `system`/`status` `requesting`: printed before each model request (with `--include-partial-messages`).
    static func requesting(sessionID: String, userMessageUUIDs: [String]) -> JSONValue {
        var line = JSONObject([
            ("type", "system"), ("subtype", "status"), ("status", "requesting"), ("session_id", .string(sessionID)), ("uuid", .string(uuid())),
        ])
        if !userMessageUUIDs.isEmpty { line["user_message_uuids"] = strings(userMessageUUIDs) }
        return .object(line)
    }

    /// `system`/`status` with `status` null: the permission mode changed.
    static func modeChanged(_ mode: String, sessionID: String) -> JSONValue {
        ["type": "system", "subtype": "status", "status": nil, "permissionMode": .string(mode), "uuid": .string(uuid()), "session_id": .string(sessionID)]
    }

    /// A successful `control_response` to one of the host's control requests.
    static func controlSuccess(_ requestID: JSONValue, response: JSONValue? = nil) -> JSONValue {
        var body = JSONObject([("subtype", "success"), ("request_id", requestID)])
        if let response { body["response"] = response }
        return ["type": "control_response", "response": .object(body)]
    }

    /// A failed `control_response`.
    static func controlError(_ requestID: JSONValue, _ message: String) -> JSONValue {
        ["type": "control_response", "response": ["subtype": "error", "request_id": requestID, "error": .string(message)]]
    }

    /// A `user` line whose content is one text block (the interrupt markers).
    static func userText(_ text: String, sessionID: String) -> JSONValue {
        [
            "type": "user", "message": ["role": "user", "content": [["type": "text", "text": .string(text)]]], "parent_tool_use_id": nil,
            "session_id": .string(sessionID), "uuid": .string(uuid()), "timestamp": .string(Timestamp.now()),
        ]
    }

    /// The `usage` of a result: `input_tokens`, `cache_creation_input_tokens`, `cache_read_input_tokens`,
    /// `output_tokens`, `service_tier`.
    static func usage(input: Int, output: Int, cacheRead: Int) -> JSONValue {
        [
            "input_tokens": .int(input), "cache_creation_input_tokens": 0, "cache_read_input_tokens": .int(cacheRead), "output_tokens": .int(output),
            "service_tier": "standard",
        ]
    }

    static func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }

    /// A lowercase UUID, as the CLI writes session ids and line uuids.
    static func uuid() -> String { UUID().uuidString.lowercased() }

    /// 24 random letters and digits (the tail of message and tool-use ids).
    static func randomID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<24).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] })
    }

    /// 17 hex digits starting with "a", the form of the CLI's background task ids.
    static func taskID() -> String {
        let digits = Array("0123456789abcdef")
        return "a" + String((0..<16).map { _ in digits[Int.random(in: 0..<digits.count)] })
    }
}
