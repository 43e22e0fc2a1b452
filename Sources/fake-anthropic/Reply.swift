import ModelAPIDouble
import RalphAPI

/// One server-sent event of a streamed reply.
typealias Event = ServerSentEvent

/// A step turned into an answer to one request: ids drawn, ready to be sent whole (``message``) or streamed
/// (``events``).
struct Reply: Sendable {
    /// A content block with the ids the wire needs.
    enum Content: Sendable {
        case text(String)
        case thinking(String, signature: String)
        case toolUse(id: String, name: String, input: JSONValue)
    }

    let id: String
    let model: String
    let step: Step
    let content: [Content]

    init(step: Step, model: String) {
        id = Identifier.make("msg_")
        self.model = model
        self.step = step
        content = step.blocks.map(Self.content)
    }

    /// The content block a script block becomes: text, thinking, or a call of a Claude Code tool.
    static func content(_ block: Block) -> Content {
        func call(_ name: String, _ input: JSONValue) -> Content { .toolUse(id: Identifier.make("toolu_"), name: name, input: input) }
        switch block {
        case .text(let text): return .text(text)
        case .thinking(let text): return .thinking(text, signature: Identifier.signature())
        case .tool(let name, let input): return call(name, input)
        case .bash(let command): return call("Bash", ["command": .string(command), "description": .string("Run \(command)")])
        case .write(let path, let content): return call("Write", ["file_path": .string(path), "content": .string(content)])
        case .edit(let path, let old, let new):
            return call("Edit", ["file_path": .string(path), "old_string": .string(old), "new_string": .string(new)])
        case .agent(let description, let prompt):
            return call("Agent", ["description": .string(description), "prompt": .string(prompt), "subagent_type": "general-purpose"])
        }
    }

    /// The stop_reason the response carries: `stop <reason>`, else `tool_use` when a tool is called, else `end_turn`.
    var stopReason: String {
        step.stopReason ?? (step.callsTool ? "tool_use" : "end_turn")
    }

    /// The usage object: `message_start` reports one output token so far, the whole message the scripted count (a
    /// `usage` line's cached count is `cache_read_input_tokens`; its reasoning count has no place here).
    func usage(outputTokens: Int) -> JSONValue {
        [
            "input_tokens": .int(step.inputTokens), "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": .int(step.cachedTokens),
            "output_tokens": .int(outputTokens),
        ]
    }

    /// The non-streaming answer: one message object.
    var message: JSONValue {
        let blocks: [JSONValue] = content.map { block in
            switch block {
            case .text(let text): ["type": "text", "text": .string(text)]
            case .thinking(let text, let signature): ["type": "thinking", "thinking": .string(text), "signature": .string(signature)]
            case .toolUse(let id, let name, let input): ["type": "tool_use", "id": .string(id), "name": .string(name), "input": input]
            }
        }
        return [
            "id": .string(id), "type": "message", "role": "assistant", "model": .string(model), "content": .array(blocks),
            "stop_reason": .string(stopReason), "stop_sequence": nil, "usage": usage(outputTokens: step.outputTokens),
        ]
    }

    /// Every event of the streamed answer, from `message_start` to `message_stop`.
    var events: [Event] {
        var events = [
            Event(
                name: "message_start",
                data: [
                    "type": "message_start",
                    "message": [
                        "id": .string(id), "type": "message", "role": "assistant", "model": .string(model), "content": [],
                        "stop_reason": nil, "stop_sequence": nil, "usage": usage(outputTokens: 1),
                    ],
                ]),
            Event(name: "ping", data: ["type": "ping"]),
        ]
        for (index, block) in content.enumerated() {
            let start: JSONValue
            var deltas: [JSONValue] = []
            switch block {
            case .text(let text):
                start = ["type": "text", "text": ""]
                deltas = text.words().map { ["type": "text_delta", "text": .string($0)] }
            case .thinking(let text, let signature):
                start = ["type": "thinking", "thinking": "", "signature": ""]
                deltas = text.words().map { ["type": "thinking_delta", "thinking": .string($0)] }
                deltas.append(["type": "signature_delta", "signature": .string(signature)])
            case .toolUse(let id, let name, let input):
                start = ["type": "tool_use", "id": .string(id), "name": .string(name), "input": [:]]
                deltas = JSONWriter.string(input).pieces().map { ["type": "input_json_delta", "partial_json": .string($0)] }
            }
            events.append(Event(name: "content_block_start", data: ["type": "content_block_start", "index": .int(index), "content_block": start]))
            for delta in deltas {
                events.append(Event(name: "content_block_delta", data: ["type": "content_block_delta", "index": .int(index), "delta": delta]))
            }
            events.append(Event(name: "content_block_stop", data: ["type": "content_block_stop", "index": .int(index)]))
        }
        events.append(
            Event(
                name: "message_delta",
                data: [
                    "type": "message_delta",
                    "delta": ["stop_reason": .string(stopReason), "stop_sequence": nil],
                    "usage": ["output_tokens": .int(step.outputTokens)],
                ]))
        events.append(Event(name: "message_stop", data: ["type": "message_stop"]))
        return events
    }

    /// The events a `hang` or `cut` sends before it stalls or breaks: `message_start`, `ping`, and the first block's
    /// start and first delta (a text block of "…" when the step has no block).
    var openingEvents: [Event] {
        let all = events
        if let delta = all.firstIndex(where: { $0.name == "content_block_delta" }) {
            return Array(all[...delta])
        }
        return Array(all.prefix(2)) + [
            Event(name: "content_block_start", data: ["type": "content_block_start", "index": 0, "content_block": ["type": "text", "text": ""]]),
            Event(name: "content_block_delta", data: ["type": "content_block_delta", "index": 0, "delta": ["type": "text_delta", "text": "…"]]),
        ]
    }
}
