import Foundation
import RalphAPI

/// Tool calls: the `tool`, `tool-auto` and `agent` commands, and permission decisions.
extension Turn {
    /// How a tool call's permission was decided.
    enum Permission {
        /// Run, with this input; `meta` says who decided (`tool_result_meta`).
        case allowed(JSONValue, meta: JSONValue)
        /// Not run: an error tool result with the message, listed in `permission_denials`; the turn goes on.
        case denied(String, meta: JSONValue?)
        /// Not run, and the turn stops: denied with `interrupt`, or interrupted while asking.
        case rejected
        /// Not run: the tool is disallowed as a whole, so for the CLI it does not exist (no denial).
        case unavailable
    }

    /// The text the CLI gives the model for a tool call the user rejected while stopping the turn.
    static let rejection =
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."

    /// What the CLI tells the model when `dontAsk` denies a call.
    static func dontAskDenial(_ tool: String) -> String {
        "Permission to use \(tool) has been denied because Claude Code is running in don't ask mode. IMPORTANT: You *may* attempt to accomplish this action using other tools that might naturally be used to accomplish this goal, e.g. using head instead of cat. But you *should not* attempt to work around this denial in malicious ways, e.g. do not use your ability to run tests to execute non-test actions. You should only try to work around this restriction in reasonable ways that do not attempt to bypass the intent behind this denial. If you believe this capability is essential to complete the user's request, STOP and explain to the user what you were trying to do and why you need this permission. Let the user decide how to proceed."
    }

    /// Streams a `tool_use` block (its own assistant line) and ends the model message; returns the tool use id.
    private mutating func toolUse(_ name: String, input: JSONValue) -> String {
        beginMessage()
        let toolUseID = "toolu_" + Lines.randomID()
        let index = blockIndex
        blockIndex += 1
        streamEvent([
            "type": "content_block_start", "index": .int(index),
            "content_block": ["type": "tool_use", "id": .string(toolUseID), "name": .string(name), "input": [:]],
        ])
        streamEvent(["type": "content_block_delta", "index": .int(index), "delta": ["type": "input_json_delta", "partial_json": .string(JSONWriter.string(input))]])
        assistant(["type": "tool_use", "id": .string(toolUseID), "name": .string(name), "input": input])
        streamEvent(["type": "content_block_stop", "index": .int(index)])
        outputTokens += 5
        endMessage(stopReason: "tool_use")
        return toolUseID
    }

    /// A tool call: asks for permission (`ask`) unless the rules or the mode decide, then an allowed call "runs"
    /// (result `ran <Name>: <input json>`, plus ` (updated input: <json>)` when the allow changed it).
    mutating func tool(_ name: String, input: JSONValue, ask: Bool) throws(Stop) {
        let toolUseID = toolUse(name, input: input)
        let outcome: Permission
        if conversation.permissions.isUnavailable(name) {
            outcome = .unavailable
        } else if ask {
            outcome = try permission(for: name, input: input, toolUseID: toolUseID)
        } else {
            outcome = .allowed(input, meta: ["permission_decision": Self.config()])
        }
        switch outcome {
        case .allowed(let updated, let meta):
            var text = "ran \(name): \(JSONWriter.string(input))"
            if updated != input { text += " (updated input: \(JSONWriter.string(updated)))" }
            toolResult(
                toolUseID: toolUseID, content: .string(text), isError: false,
                toolUseResult: ["stdout": .string(text), "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false], meta: meta
            )
        case .denied(let message, let meta):
            denials.append(["tool_name": .string(name), "tool_use_id": .string(toolUseID), "tool_input": input])
            toolResult(toolUseID: toolUseID, content: .string(message), isError: true, toolUseResult: .string("Error: " + message), meta: meta)
        case .rejected:
            denials.append(["tool_name": .string(name), "tool_use_id": .string(toolUseID), "tool_input": input])
            toolResult(
                toolUseID: toolUseID, content: .string(Self.rejection), isError: true, toolUseResult: "User rejected tool use",
                meta: ["non_execution_kind": "user-rejected"]
            )
            throw .interrupted(whileTools: true)
        case .unavailable:
            let message = "Error: No such tool available: \(name). \(name) is disabled for this session, in subagents as well as here."
            toolResult(
                toolUseID: toolUseID, content: .string("<tool_use_error>\(message)</tool_use_error>"), isError: true, toolUseResult: .string(message),
                meta: nil
            )
        }
        apiCalls += 1
    }

    /// A `permission_decision` made by configuration (rules or the mode): accepted, or with `accept` false rejected.
    private static func config(_ reason: String? = nil, accept: Bool = true) -> JSONValue {
        var decision = JSONObject([("decision", accept ? "accept" : "reject"), ("source", "config")])
        if let reason { decision["reason_type"] = .string(reason) }
        return .object(decision)
    }

    /// The `tool_result_meta` of a call that configuration denied.
    private static func denial(_ reason: String?, kind: String = "permission-rule") -> JSONValue {
        ["non_execution_kind": .string(kind), "permission_decision": config(reason, accept: false)]
    }

    /// Decides like the CLI: deny rules deny; `bypassPermissions`, reads inside the working directories, allow rules
    /// and (for file tools inside them) `acceptEdits` run at once; `dontAsk` and print mode without a prompt tool deny;
    /// otherwise the host is asked with `can_use_tool` and the turn blocks for its answer.
    private mutating func permission(for name: String, input: JSONValue, toolUseID: String) throws(Stop) -> Permission {
        let mode = conversation.inbox.current.permissionMode
        let permissions = conversation.permissions
        if permissions.deny.contains(where: { $0.matches(tool: name, input: input) }) {
            if name == "Bash", let command = Permissions.subject(tool: name, input: input) {
                return .denied("Permission to use Bash with command \(command) has been denied.", meta: Self.denial("subcommandResults"))
            }
            return .denied("Permission to use \(name) has been denied.", meta: Self.denial(nil))
        }
        if mode == "bypassPermissions" { return .allowed(input, meta: ["permission_decision": Self.config("mode")]) }
        if permissions.isReadOnly(tool: name, input: input) {
            return .allowed(input, meta: ["permission_decision": Self.config(name == "Bash" ? "subcommandResults" : "mode")])
        }
        if permissions.allow.contains(where: { $0.matches(tool: name, input: input) }) {
            return .allowed(input, meta: ["permission_decision": Self.config(name == "Bash" ? "subcommandResults" : nil)])
        }
        let inside = Permissions.subject(tool: name, input: input).map(permissions.isInside) ?? true
        if mode == "acceptEdits" && Permissions.fileTools.contains(name) && inside {
            return .allowed(input, meta: ["permission_decision": Self.config("mode")])
        }
        if mode == "dontAsk" { return .denied(Self.dontAskDenial(name), meta: Self.denial("mode")) }
        guard conversation.options.asksOverStdio else {
            let path = Permissions.subject(tool: name, input: input)
            let what = name == "Write" && path != nil ? "write to \(path ?? "")" : "use \(name)"
            return .denied("Claude requested permissions to \(what), but you haven't granted it yet.", meta: Self.denial(nil, kind: "user-rejected"))
        }
        let requestID = Lines.uuid()
        var request = JSONObject([("subtype", "can_use_tool"), ("tool_name", .string(name)), ("display_name", .string(name)), ("input", input)])
        request.members += permissions.requestFields(tool: name, input: input)
        request["tool_use_id"] = .string(toolUseID)
        switch conversation.inbox.ask(requestID, line: ["type": "control_request", "request_id": .string(requestID), "request": .object(request)]) {
        case .interrupted:
            return .rejected
        case .endOfInput:
            throw .failed("stdin closed while waiting for a permission decision")
        case .response(let response):
            let decision = response["response"]?.objectValue
            guard response["subtype"]?.stringValue == "success", let behavior = decision?["behavior"]?.stringValue else {
                return .denied(response["error"]?.stringValue ?? "Invalid permission response", meta: nil)
            }
            if behavior == "allow" {
                if let mode = conversation.permissions.apply(decision?["updatedPermissions"]) {
                    conversation.inbox.setPermissionMode(mode)
                    output.emit(Lines.modeChanged(mode, sessionID: conversation.sessionID))
                }
                return .allowed(decision?["updatedInput"] ?? input, meta: ["permission_decision": ["decision": "accept", "source": "user_temporary"]])
            }
            if decision?["interrupt"]?.boolValue == true { return .rejected }
            return .denied(
                decision?["message"]?.stringValue ?? "Permission denied",
                meta: ["non_execution_kind": "permission-rule", "permission_decision": ["decision": "reject", "source": "user_reject"]]
            )
        }
    }

    /// The `agent` command: an `Agent` tool call that runs in the background (`task_started`, an "Async agent
    /// launched" result), reported finished `seconds` after this turn's result.
    mutating func launchAgent(after seconds: Double, text: String) throws(Stop) {
        let description = "Background agent"
        let input: JSONValue = ["description": .string(description), "prompt": .string(text), "subagent_type": "general-purpose"]
        let toolUseID = toolUse("Agent", input: input)
        let agent = BackgroundAgent(taskID: Lines.taskID(), toolUseID: toolUseID, description: description, text: text, seconds: seconds)
        conversation.runningAgents.append(agent)
        launched.append(agent)
        output.emit(conversation.backgroundTasksChanged())
        output.emit([
            "type": "system", "subtype": "task_started", "task_id": .string(agent.taskID), "tool_use_id": .string(toolUseID),
            "description": .string(description), "subagent_type": "general-purpose", "is_backgrounded": true, "spawn_depth": 1,
            "task_type": "local_agent", "prompt": .string(text), "uuid": .string(Lines.uuid()), "session_id": sessionID,
        ])
        let launchedText = """
            Async agent launched successfully.
            agentId: \(agent.taskID) (internal ID - do not mention to user.)
            The agent is working in the background. You will be notified automatically when it completes.
            """
        toolResult(
            toolUseID: toolUseID, content: [["type": "text", "text": .string(launchedText)]], isError: false,
            toolUseResult: [
                "isAsync": true, "status": "async_launched", "agentId": .string(agent.taskID), "description": .string(description), "prompt": .string(text),
            ],
            meta: ["permission_decision": Self.config()]
        )
        apiCalls += 1
    }
}
