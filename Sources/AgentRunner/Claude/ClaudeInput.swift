import RalphAPI

/// The stdin lines the host writes to `claude -p --input-format stream-json --permission-prompt-tool stdio`
/// (reference §3.3 and §3.5). Each is compact JSON with a stable key order, ending with `\n`.
public enum ClaudeInput {
    /// A user turn: `{"type":"user","message":{"role":"user","content":"…"}}`.
    public static func user(text: String) -> [UInt8] {
        line(["type": "user", "message": ["role": "user", "content": .string(text)]])
    }

    /// Allows a `can_use_tool` request.
    ///
    /// - Parameters:
    ///   - input: the tool input to run with: the request's original input when nothing changed (an empty `{}` would
    ///     reach the tool as empty arguments).
    ///   - updatedPermissions: PermissionUpdate list to apply, e.g. ``sessionPermissions(from:)`` for
    ///     "allow for this session".
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

    /// The `updatedPermissions` for "allow for this session": the request's `permission_suggestions` as given, each
    /// object without a `destination` getting `"destination":"session"`. Nil when there are none; then use
    /// ``sessionRule(toolName:)``.
    public static func sessionPermissions(from suggestions: JSONValue) -> JSONValue? {
        guard case .array(let list) = suggestions, !list.isEmpty else { return nil }
        return .array(
            list.map { entry in
                guard var object = entry.objectValue, object["destination"] == nil else { return entry }
                object["destination"] = "session"
                return .object(object)
            }
        )
    }

    /// A PermissionUpdate list allowing every use of `toolName` for the rest of the session.
    public static func sessionRule(toolName: String) -> JSONValue {
        [["type": "addRules", "rules": [["toolName": .string(toolName)]], "behavior": "allow", "destination": "session"]]
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
