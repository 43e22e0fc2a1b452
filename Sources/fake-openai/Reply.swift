import Foundation
import ModelAPIDouble
import RalphAPI

/// A step turned into one Responses API response: output items with their ids drawn, ready to be sent whole
/// (``response(status:)``) or streamed (``events``, in Reply+Events.swift).
struct Reply: Sendable {
    /// One output item.
    enum Item: Sendable {
        /// An assistant message with one `output_text` part.
        case message(id: String, text: String)
        /// A reasoning item with one summary text; `encrypted` when the request asked for `reasoning.encrypted_content`.
        case reasoning(id: String, summary: String, encrypted: String?)
        /// A call of a function tool; `arguments` is JSON text.
        case functionCall(id: String, callID: String, name: String, arguments: String)
        /// A call of a custom (freeform) tool such as `apply_patch`; `input` is the tool's own text.
        case customToolCall(id: String, callID: String, name: String, input: String)
    }

    let id: String
    let model: String
    let step: Step
    let items: [Item]
    let createdAt: Int

    /// Maps the step's blocks to items. Throws a 400 for a block the request offers no tool for.
    init(step: Step, model: String, tools: [String], encryptedReasoning: Bool) throws(OpenAIError) {
        id = Identifier.make("resp_", length: 32)
        self.model = model
        self.step = step
        createdAt = Int(Date().timeIntervalSince1970)
        var items: [Item] = []
        for block in step.blocks {
            items.append(try Self.item(block, tools: tools, encryptedReasoning: encryptedReasoning))
        }
        self.items = items
    }

    /// The item a block becomes.
    static func item(_ block: Block, tools: [String], encryptedReasoning: Bool) throws(OpenAIError) -> Item {
        func call(_ name: String, _ arguments: JSONValue) -> Item {
            .functionCall(
                id: Identifier.make("fc_", length: 32), callID: Identifier.make("call_"), name: name,
                arguments: JSONWriter.string(arguments))
        }
        func patch(_ text: String) throws(OpenAIError) -> Item {
            guard tools.contains("apply_patch") else { throw .missingTool("write and edit need the apply_patch tool", offered: tools) }
            return .customToolCall(
                id: Identifier.make("ctc_", length: 32), callID: Identifier.make("call_"), name: "apply_patch", input: text)
        }
        switch block {
        case .text(let text):
            return .message(id: Identifier.make("msg_", length: 32), text: text)
        case .thinking(let text):
            return .reasoning(
                id: Identifier.make("rs_", length: 32), summary: text, encrypted: encryptedReasoning ? Identifier.signature() : nil)
        case .tool(let name, let input):
            return call(name, input)
        case .bash(let command):
            if tools.contains("shell_command") { return call("shell_command", ["command": .string(command)]) }
            if tools.contains("exec_command") { return call("exec_command", ["cmd": .string(command)]) }
            throw .missingTool("bash needs a shell tool (shell_command or exec_command)", offered: tools)
        case .write(let path, let content):
            return try patch(Patch.add(path: path, content: content))
        case .edit(let path, let old, let new):
            return try patch(Patch.update(path: path, old: old, new: new))
        case .agent:
            throw .invalidRequest("fake-openai: agent has no counterpart in the Responses API double")
        }
    }

    /// `stop <reason>` as the Responses API ends a response: `max_tokens` or `max_output_tokens` and `content_filter`
    /// make it incomplete with that reason; nil (completed) for any other reason or none.
    var incompleteReason: String? {
        switch step.stopReason {
        case "max_tokens"?, "max_output_tokens"?: "max_output_tokens"
        case "content_filter"?: "content_filter"
        default: nil
        }
    }

    /// The usage object.
    var usage: JSONValue {
        [
            "input_tokens": .int(step.inputTokens), "input_tokens_details": ["cached_tokens": .int(step.cachedTokens)],
            "output_tokens": .int(step.outputTokens), "output_tokens_details": ["reasoning_tokens": .int(step.reasoningTokens)],
            "total_tokens": .int(step.inputTokens + step.outputTokens),
        ]
    }

    /// The response object: `in_progress` (no output, no usage yet), `completed` or `incomplete`.
    func response(status: String) -> JSONValue {
        let done = status != "in_progress"
        let incomplete: JSONValue = status == "incomplete" ? ["reason": .string(incompleteReason ?? "max_output_tokens")] : nil
        return [
            "id": .string(id), "object": "response", "created_at": .int(createdAt), "status": .string(status), "error": nil,
            "incomplete_details": incomplete, "instructions": nil, "max_output_tokens": nil, "model": .string(model),
            "output": done ? .array(items.map { Self.json($0, done: true) }) : [], "parallel_tool_calls": true,
            "previous_response_id": nil, "store": false, "tool_choice": "auto", "tools": [], "usage": done ? usage : nil,
            "metadata": [:],
        ]
    }

    /// The finished response, non-streamed.
    var finished: JSONValue { response(status: incompleteReason == nil ? "completed" : "incomplete") }

    /// An item as JSON: finished (`done`), or as `response.output_item.added` announces it (status `in_progress`,
    /// text, arguments, input and summary still empty).
    static func json(_ item: Item, done: Bool) -> JSONValue {
        let status: JSONValue = done ? "completed" : "in_progress"
        switch item {
        case .message(let id, let text):
            let content: JSONValue = done ? [["type": "output_text", "annotations": [], "logprobs": [], "text": .string(text)]] : []
            return ["id": .string(id), "type": "message", "status": status, "content": content, "role": "assistant"]
        case .reasoning(let id, let summary, let encrypted):
            var members: [(key: String, value: JSONValue)] = [
                ("id", .string(id)), ("type", "reasoning"), ("summary", done ? [["type": "summary_text", "text": .string(summary)]] : []),
            ]
            if done, let encrypted { members.append(("encrypted_content", .string(encrypted))) }
            return .object(JSONObject(members))
        case .functionCall(let id, let callID, let name, let arguments):
            return [
                "id": .string(id), "type": "function_call", "status": status, "arguments": .string(done ? arguments : ""),
                "call_id": .string(callID), "name": .string(name),
            ]
        case .customToolCall(let id, let callID, let name, let input):
            return [
                "id": .string(id), "type": "custom_tool_call", "status": status, "call_id": .string(callID),
                "input": .string(done ? input : ""), "name": .string(name),
            ]
        }
    }
}
