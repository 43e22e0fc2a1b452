/// A tool the agent called during a turn, with its real result once it has one.
public struct ToolCall: Codable, Hashable, Sendable {
    public var toolUseId: String
    public var name: String
    public var input: JSONValue
    /// The tool_result text, nil while the tool runs.
    public var output: String?
    public var isError: Bool?
    /// The approval this call waited for, if any.
    public var approvalId: String?
    /// For a file edit that ran: what it changed, one diff per file (the file before the call against the file after).
    public var diffs: [FileDiff]?

    public init(
        toolUseId: String, name: String, input: JSONValue, output: String? = nil, isError: Bool? = nil, approvalId: String? = nil, diffs: [FileDiff]? = nil
    ) {
        self.toolUseId = toolUseId
        self.name = name
        self.input = input
        self.output = output
        self.isError = isError
        self.approvalId = approvalId
        self.diffs = diffs
    }

    enum CodingKeys: String, CodingKey {
        case name, input, output, diffs
        case toolUseId = "tool_use_id"
        case isError = "is_error"
        case approvalId = "approval_id"
    }
}
