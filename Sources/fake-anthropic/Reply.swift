import RalphAPI

/// One server-sent event of a streamed reply.
struct Event: Sendable {
    /// The `event:` name, which is also the payload's `type`.
    var name: String
    /// The `data:` payload.
    var data: JSONValue

    /// `event: <name>\ndata: <json>\n\n`.
    var bytes: [UInt8] {
        var out = Array("event: \(name)\ndata: ".utf8)
        JSONWriter.write(data, into: &out)
        out.append(contentsOf: [0x0A, 0x0A])
        return out
    }
}

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
        content = step.blocks.map { block in
            switch block {
            case .text(let text): .text(text)
            case .thinking(let text): .thinking(text, signature: Identifier.signature())
            case .toolUse(let name, let input): .toolUse(id: Identifier.make("toolu_"), name: name, input: input)
            }
        }
    }

    /// The usage object: `message_start` reports one output token so far, the whole message the scripted count.
    func usage(outputTokens: Int) -> JSONValue {
        [
            "input_tokens": .int(step.inputTokens), "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
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
            "stop_reason": .string(step.effectiveStopReason), "stop_sequence": nil, "usage": usage(outputTokens: step.outputTokens),
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
                deltas = Self.words(text).map { ["type": "text_delta", "text": .string($0)] }
            case .thinking(let text, let signature):
                start = ["type": "thinking", "thinking": "", "signature": ""]
                deltas = Self.words(text).map { ["type": "thinking_delta", "thinking": .string($0)] }
                deltas.append(["type": "signature_delta", "signature": .string(signature)])
            case .toolUse(let id, let name, let input):
                start = ["type": "tool_use", "id": .string(id), "name": .string(name), "input": [:]]
                deltas = Self.pieces(JSONWriter.string(input)).map { ["type": "input_json_delta", "partial_json": .string($0)] }
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
                    "delta": ["stop_reason": .string(step.effectiveStopReason), "stop_sequence": nil],
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

    /// Word-sized pieces of `text`, each a word with the whitespace after it; joined they are `text` again.
    static func words(_ text: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        var inSpace = false
        for c in text {
            if c.isWhitespace {
                inSpace = true
            } else if inSpace {
                pieces.append(current)
                current = ""
                inSpace = false
            }
            current.append(c)
        }
        if !current.isEmpty || pieces.isEmpty { pieces.append(current) }
        return pieces
    }

    /// `json` in pieces of at most 16 characters, and at least two pieces (as the real API streams tool input).
    static func pieces(_ json: String) -> [String] {
        let characters = Array(json)
        let size = max(1, min(16, characters.count / 2))
        return stride(from: 0, to: characters.count, by: size).map { String(characters[$0..<min($0 + size, characters.count)]) }
    }
}
