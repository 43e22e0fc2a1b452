/// `tool_start` (no output yet) and `tool_end` (with the real tool_result).
public struct ToolEvent: Codable, Hashable, Sendable {
    public var turnId: String
    public var toolUseId: String
    public var name: String
    public var input: JSONValue
    public var output: String?
    public var isError: Bool?
    /// The message the call is stored with.
    public var messageId: String?
    /// On `tool_end` of a file edit: what it changed (``ToolCall/diffs``).
    public var diffs: [FileDiff]?

    public init(
        turnId: String, toolUseId: String, name: String, input: JSONValue, output: String? = nil, isError: Bool? = nil, messageId: String? = nil,
        diffs: [FileDiff]? = nil
    ) {
        self.turnId = turnId
        self.toolUseId = toolUseId
        self.name = name
        self.input = input
        self.output = output
        self.isError = isError
        self.messageId = messageId
        self.diffs = diffs
    }

    enum CodingKeys: String, CodingKey {
        case name, input, output, diffs
        case turnId = "turn_id"
        case toolUseId = "tool_use_id"
        case isError = "is_error"
        case messageId = "message_id"
    }
}
