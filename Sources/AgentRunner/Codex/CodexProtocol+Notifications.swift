import RalphAPI

extension CodexProtocol {
    /// A notification from Codex.
    mutating func notified(_ method: String, _ params: JSONObject) -> Step {
        switch method {
        case "turn/started":
            return turnStarted(params["turn"]?.objectValue?["id"]?.stringValue)
        case "turn/completed":
            return turnCompleted(params["turn"]?.objectValue ?? JSONObject())
        case "item/started":
            return itemStarted(params["item"]?.objectValue ?? JSONObject())
        case "item/completed":
            return itemCompleted(params["item"]?.objectValue ?? JSONObject())
        case "item/agentMessage/delta":
            return delta(itemID: params["itemId"]?.stringValue, params["delta"]?.stringValue ?? "")
        case "thread/tokenUsage/updated":
            if var turn, params["turnId"]?.stringValue == turn.codexID || turn.codexID == nil {
                turn.usage = turn.usage + Self.usage(params["tokenUsage"]?.objectValue?["last"]?.objectValue)
                self.turn = turn
            }
            return Step()
        case "error":
            return errorNotified(params)
        default:
            // Thread and account notices, reasoning, plan updates, output deltas of commands, the turn's git diff:
            // nothing the conversation shows.
            return Step(events: [.other(type: method, raw: .object(params))])
        }
    }

    /// `turn/started`: our message began.
    mutating func turnStarted(_ id: String?) -> Step {
        guard var turn, !turn.started, turn.codexID == nil || turn.codexID == id else {
            return Step(events: [.other(type: "turn/started", raw: id.map(JSONValue.string) ?? .null)])
        }
        turn.codexID = id
        turn.started = true
        var step = Step(events: [.lifecycle(commandUUID: turn.uuid, state: "started")])
        let interrupt = turn.interruptWhenStarted
        turn.interruptWhenStarted = nil
        self.turn = turn
        if let interrupt { step.append(command(.interrupt(requestID: interrupt))) }
        return step
    }

    /// `turn/completed`: the end of our turn, with what it cost in tokens (Codex reports no price).
    mutating func turnCompleted(_ completed: JSONObject) -> Step {
        guard let turn, completed["id"]?.stringValue == turn.codexID || turn.codexID == nil else {
            return Step(events: [.other(type: "turn/completed", raw: .object(completed))])
        }
        let status = completed["status"]?.stringValue ?? "completed"
        let error = completed["error"]?.objectValue
        var errors: [String] = []
        if status == "failed" {
            let message = error?["message"]?.stringValue ?? "the turn failed"
            let details = error?["additionalDetails"]?.stringValue
            errors = [details.map { "\(message) (\($0))" } ?? message]
        }
        let result = AgentTurnResult(
            subtype: status == "completed" ? "success" : status, isError: status == "failed", sessionID: threadID,
            durationMs: completed["durationMs"]?.intValue, usage: turn.usage, errors: errors, stopReason: status, userMessageUUIDs: [turn.uuid]
        )
        self.turn = nil
        message = nil
        retrying = false
        // What the turn left pending is settled by Codex itself (an interrupt resolves its approvals).
        approvals = [:]
        toolInputs = [:]
        var step = Step(events: [.result(result)])
        step.append(flushWaiting())
        return step
    }

    /// `error`: with `willRetry`, Codex tries the model request again (said like Claude's `api_retry`); without, the
    /// turn fails and `turn/completed` carries the reason.
    mutating func errorNotified(_ params: JSONObject) -> Step {
        guard params["willRetry"]?.boolValue == true else { return Step(events: [.other(type: "error", raw: .object(params))]) }
        retrying = true
        let error = params["error"]?.objectValue
        let text = error?["message"]?.stringValue ?? "the model request failed"
        // "Reconnecting... 2/5"
        let counts = text.split(separator: " ").last?.split(separator: "/").compactMap { Int($0) } ?? []
        let info = error?["codexErrorInfo"]?.objectValue?.members.first?.value.objectValue
        return Step(events: [
            .apiRetry(
                attempt: counts.first ?? 1, maxRetries: counts.count == 2 ? counts[1] : nil,
                error: error?["additionalDetails"]?.stringValue ?? text, errorStatus: info?["httpStatusCode"]?.intValue, retryDelayMs: nil
            )
        ])
    }

    /// A piece of the agent's message. After a retry, the text Codex streams again is matched against what was shown,
    /// and only what is new passes.
    mutating func delta(itemID: String?, _ text: String) -> Step {
        guard var message, message.itemID == itemID ?? message.itemID else { return Step(events: [.textDelta(text: text, parentToolUseID: nil)]) }
        var fresh = Substring(text)
        if var replaying = message.replaying {
            let common = zip(replaying, fresh).prefix { $0 == $1 }.count
            if common == min(replaying.count, fresh.count) {
                replaying = replaying.dropFirst(common)
                fresh = fresh.dropFirst(common)
                message.replaying = replaying.isEmpty ? nil : replaying
            } else {
                // The retried message says something else: from here on it is shown as it comes.
                message.replaying = nil
            }
        }
        message.shown += fresh
        self.message = message
        return fresh.isEmpty ? Step() : Step(events: [.textDelta(text: String(fresh), parentToolUseID: nil)])
    }

    // MARK: - Requests from Codex

    /// An approval request becomes a permission request of the turn; requests this client does not serve are answered
    /// with an error at once, so Codex never waits on them.
    mutating func serverRequest(id: JSONValue, method: String, params: JSONObject) -> Step {
        let itemID = params["itemId"]?.stringValue
        switch method {
        case "item/commandExecution/requestApproval":
            let input = itemID.flatMap { toolInputs[$0] } ?? Self.commandInput(params)
            return approval(id: id, toolName: CodexTool.shell, input: input, itemID: itemID, reason: params["reason"]?.stringValue, path: nil)
        case "item/fileChange/requestApproval":
            let input = itemID.flatMap { toolInputs[$0] } ?? ["changes": []]
            return approval(
                id: id, toolName: CodexTool.applyPatch, input: input, itemID: itemID, reason: params["reason"]?.stringValue,
                path: params["grantRoot"]?.stringValue
            )
        default:
            let refusal = JSONRPCMessage.errorResponse(id: id, code: -32601, message: "ralph-mobile does not serve \(method) requests")
            return Step(events: [.other(type: method, raw: .object(params))], lines: [refusal])
        }
    }

    mutating func approval(id: JSONValue, toolName: String, input: JSONValue, itemID: String?, reason: String?, path: String?) -> Step {
        let requestID = "codex-" + JSONWriter.string(id)
        approvals[requestID] = id
        let request = AgentPermissionRequest(
            requestID: requestID, toolName: toolName, input: input, toolUseID: itemID, decisionReason: reason, blockedPath: path
        )
        return Step(events: [.permissionRequest(request)])
    }

    /// Token counts of one model request (`tokenUsage.last`): Codex's input count includes the cached part, which is
    /// kept apart as Claude's is.
    static func usage(_ last: JSONObject?) -> TokenUsage {
        let input = last?["inputTokens"]?.intValue ?? 0
        let cached = last?["cachedInputTokens"]?.intValue ?? 0
        return TokenUsage(
            inputTokens: max(0, input - cached), outputTokens: last?["outputTokens"]?.intValue ?? 0,
            cacheCreationInputTokens: last?["cacheWriteInputTokens"]?.intValue ?? 0, cacheReadInputTokens: cached
        )
    }
}
