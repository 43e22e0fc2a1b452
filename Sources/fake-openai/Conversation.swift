import RalphAPI

/// What a `/v1/responses` request says about where the conversation stands, from its `input` and `tools` alone (no
/// server state), so it holds across Codex restarts and resumed threads.
struct Conversation: Sendable {
    /// The prompt: the last `input_text` part, not starting with `<`, of the last user message that has one. Codex
    /// adds user messages of its own (`<environment_context>`, `<turn_aborted>`…); developer messages are ignored.
    /// Nil when no user message has such a text.
    var prompt: String?
    /// How many model responses follow the prompt's message: the maximal runs of consecutive model-output items
    /// (assistant messages, function and custom tool calls, reasoning), since one response can hold several.
    var step = 0
    /// How many user messages carry a prompt, this one included: `{turn}` in a `say` of the script.
    var turn = 0
    /// A summary of the input items after the last model-output item (what the model is answering: tool outputs, or
    /// the user's messages), for the log.
    var last: [JSONValue] = []
    /// The names of the tools the request offers (a tool without a name by its type, e.g. `web_search`).
    var tools: [String] = []

    /// Reads a request body's `input` (an array of items, or a string: one user prompt) and `tools`.
    init(input: JSONValue, tools: JSONValue?) {
        self.tools = (tools?.arrayValue ?? []).compactMap { tool in
            tool.objectValue.flatMap { $0["name"]?.stringValue ?? $0["type"]?.stringValue }
        }
        if case .string(let text) = input {
            prompt = text
            turn = 1
            last = [["type": "message", "role": "user", "text": .string(Self.clip(text))]]
            return
        }
        let items = (input.arrayValue ?? []).compactMap(\.objectValue)
        turn = items.count { Self.promptText(of: $0) != nil }
        let tail = items.lastIndex(where: Self.isModelOutput).map { items.index(after: $0) } ?? items.startIndex
        last = items[tail...].map(Self.summary)
        guard let index = items.lastIndex(where: { Self.promptText(of: $0) != nil }) else { return }
        prompt = Self.promptText(of: items[index])
        var inRun = false
        for item in items[(index + 1)...] {
            let output = Self.isModelOutput(item)
            if output && !inRun { step += 1 }
            inRun = output
        }
    }

    /// Whether an item is something the model produced.
    static func isModelOutput(_ item: JSONObject) -> Bool {
        switch item["type"]?.stringValue {
        case "message"?, nil: item["role"]?.stringValue == "assistant"
        case "function_call"?, "custom_tool_call"?, "reasoning"?: true
        default: false
        }
    }

    /// The prompt a user message carries: its last `input_text` (or string content) not starting with `<`.
    static func promptText(of item: JSONObject) -> String? {
        guard item["role"]?.stringValue == "user", (item["type"]?.stringValue ?? "message") == "message" else { return nil }
        return texts(of: item).last { !$0.hasPrefix("<") }
    }

    /// A message's texts: string content, or its text parts.
    static func texts(of item: JSONObject) -> [String] {
        switch item["content"] {
        case .string(let s)?: [s]
        case .array(let parts)?:
            parts.compactMap { part in
                guard let part = part.objectValue, ["input_text", "output_text", "text"].contains(part["type"]?.stringValue) else {
                    return nil
                }
                return part["text"]?.stringValue
            }
        default: []
        }
    }

    /// One line of the log's `last`: a message's role and text, a tool output's call id and text, a call's name and
    /// arguments or input; other items by type alone. Texts are clipped to 2000 characters.
    static func summary(_ item: JSONObject) -> JSONValue {
        let type = item["type"]?.stringValue ?? "message"
        switch type {
        case "message":
            return ["type": "message", "role": item["role"] ?? nil, "text": .string(clip(texts(of: item).joined(separator: "\n")))]
        case "function_call_output", "custom_tool_call_output":
            let output: String =
                switch item["output"] {
                case .string(let s)?: s
                case let other?: JSONWriter.string(other)
                case nil: ""
                }
            return ["type": .string(type), "call_id": item["call_id"] ?? nil, "output": .string(clip(output))]
        case "function_call":
            return ["type": "function_call", "name": item["name"] ?? nil, "arguments": item["arguments"] ?? nil]
        case "custom_tool_call":
            return ["type": "custom_tool_call", "name": item["name"] ?? nil, "input": item["input"] ?? nil]
        default:
            return ["type": .string(type)]
        }
    }

    private static func clip(_ text: String) -> String { String(text.prefix(2000)) }
}
