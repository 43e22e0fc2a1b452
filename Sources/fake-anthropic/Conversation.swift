import RalphAPI

/// What a `/v1/messages` request says about where the conversation stands. Everything is derived from the request
/// alone (no server state), so it holds across CLI restarts, `--resume`, and sub-agents.
struct Conversation: Sendable {
    /// The prompt: the last user text that is not a `<system-reminder>`, from the last user message that has one.
    /// Nil when no user message has such a text.
    var prompt: String?
    /// How many assistant messages follow the prompt's message: 0 for the first reply, 1 after one tool round trip…
    var step: Int
    /// A summary of the content blocks of the last message (messages with role `system` skipped), for the log.
    var last: [JSONValue]
    /// How many user messages carry a prompt, this one included: `{turn}` in a `say` of the script.
    var turn: Int

    /// Reads `messages`; entries that are not objects and messages with role `system` are ignored.
    init(messages: [JSONValue]) {
        let entries = messages.compactMap(\.objectValue).filter { $0["role"]?.stringValue != "system" }
        prompt = nil
        step = 0
        last = entries.last.map(Self.summary) ?? []
        turn = entries.count { $0["role"]?.stringValue == "user" && !Self.promptTexts(of: $0).isEmpty }
        for (index, message) in entries.enumerated().reversed() where message["role"]?.stringValue == "user" {
            guard let text = Self.promptTexts(of: message).last else { continue }
            prompt = text
            step = entries[(index + 1)...].count { $0["role"]?.stringValue == "assistant" }
            break
        }
    }

    /// The texts of a message that can be a prompt: string content, or `text` blocks, minus system reminders.
    static func promptTexts(of message: JSONObject) -> [String] {
        let texts: [String]
        switch message["content"] {
        case .string(let s)?: texts = [s]
        case .array(let blocks)?:
            texts = blocks.compactMap { block in
                guard let block = block.objectValue, block["type"]?.stringValue == "text" else { return nil }
                return block["text"]?.stringValue
            }
        default: texts = []
        }
        return texts.filter { !$0.hasPrefix("<system-reminder>") }
    }

    /// One entry per content block: text, tool_result (content as text), tool_use; other blocks by type alone.
    static func summary(of message: JSONObject) -> [JSONValue] {
        switch message["content"] {
        case .string(let s)?:
            return [["type": "text", "text": .string(s)]]
        case .array(let blocks)?:
            return blocks.map { value in
                guard let block = value.objectValue else { return ["type": nil] }
                let type = block["type"]?.stringValue
                switch type {
                case "text":
                    return ["type": "text", "text": block["text"] ?? ""]
                case "tool_result":
                    return [
                        "type": "tool_result", "tool_use_id": block["tool_use_id"] ?? nil,
                        "content": .string(text(of: block["content"])), "is_error": .bool(block["is_error"]?.boolValue ?? false),
                    ]
                case "tool_use":
                    return ["type": "tool_use", "name": block["name"] ?? nil, "input": block["input"] ?? nil]
                default:
                    return ["type": type.map(JSONValue.string) ?? nil]
                }
            }
        default:
            return []
        }
    }

    /// A tool result's content as text: the string itself, or its text blocks joined by newlines.
    static func text(of content: JSONValue?) -> String {
        switch content {
        case .string(let s)?: return s
        case .array(let blocks)?:
            return blocks.compactMap { $0.objectValue?["text"]?.stringValue }.joined(separator: "\n")
        default: return ""
        }
    }
}
