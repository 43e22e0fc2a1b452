import RalphAPI

/// The stdin lines the host writes to `claude -p --input-format stream-json --permission-prompt-tool stdio`
/// (reference §3.3 and §3.5). Each is compact JSON with a stable key order, ending with `\n`.
public enum ClaudeInput {
    /// A user turn: `{"type":"user","uuid":"…","message":{"role":"user","content":"…"}}`. With a `uuid`, the CLI reports
    /// the turn's `command_lifecycle` and marks its lines and its `result` with `user_message_uuids`, which is how a
    /// turn it starts by itself is told apart from ours.
    public static func user(text: String, uuid: String? = nil) -> [UInt8] {
        var object = JSONObject([("type", "user")])
        if let uuid { object["uuid"] = .string(uuid) }
        object["message"] = ["role": "user", "content": .string(text)]
        return line(.object(object))
    }

    /// Allows a `can_use_tool` request.
    ///
    /// - Parameters:
    ///   - input: the tool input to run with: the request's original input when nothing changed (an empty `{}` would
    ///     reach the tool as empty arguments).
    ///   - updatedPermissions: a PermissionUpdate list for the CLI to apply (rules, modes, directories). The server
    ///     never sends one — "allow for this session" is kept by the server — but the protocol has it.
    public static func allow(requestID: String, input: JSONValue, updatedPermissions: JSONValue? = nil) -> [UInt8] {
        var decision = JSONObject([("behavior", "allow"), ("updatedInput", input)])
        if let updatedPermissions { decision["updatedPermissions"] = updatedPermissions }
        return controlResponse(requestID: requestID, decision: decision)
    }

    /// Denies a `can_use_tool` request; the model sees `message` as an error tool result. With `interrupt`, the whole
    /// turn stops.
    public static func deny(requestID: String, message: String, interrupt: Bool = false) -> [UInt8] {
        var decision = JSONObject([("behavior", "deny"), ("message", .string(message))])
        if interrupt { decision["interrupt"] = true }
        return controlResponse(requestID: requestID, decision: decision)
    }

    /// Stops the running turn without ending the process; the CLI answers with a `control_response` for
    /// `requestID` and ends the turn with an error `result`.
    public static func interrupt(requestID: String) -> [UInt8] {
        line(["type": "control_request", "request_id": .string(requestID), "request": ["subtype": "interrupt"]])
    }

    private static func controlResponse(requestID: String, decision: JSONObject) -> [UInt8] {
        line([
            "type": "control_response",
            "response": ["subtype": "success", "request_id": .string(requestID), "response": .object(decision)],
        ])
    }

    private static func line(_ value: JSONValue) -> [UInt8] {
        var bytes = JSONWriter.bytes(value)
        bytes.append(0x0A)
        return bytes
    }
}
