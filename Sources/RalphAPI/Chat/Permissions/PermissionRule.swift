/// What "allow for this session" grants, the rules a conversation holds, and what the agent CLI reports about itself.
///
/// "Allow for this session" never hands the agent CLI a rule, a directory or a permission mode: the server keeps the
/// grant and answers the CLI's later requests that match it. So a grant means exactly what the approval sheet showed
/// (``PermissionRule/display``), is visible on the conversation (``Conversation/sessionRules``) and can be revoked at
/// once.

/// One kind of tool call: a tool, and the value one field of its input (or the whole input) must have.
public struct PermissionRule: Codable, Hashable, Sendable {
    public var toolName: String
    /// The input field compared (`command` for Bash, `file_path` for file tools, …); nil: the whole input must be equal.
    public var field: String?
    /// What that field (or the whole input) must equal.
    public var value: JSONValue
    /// How a person reads it, e.g. `Bash(swift test)`, `Edit(Sources/App.swift)`, `mcp__db__query (this exact input)`.
    public var display: String

    public init(toolName: String, field: String?, value: JSONValue, display: String) {
        self.toolName = toolName
        self.field = field
        self.value = value
        self.display = display
    }

    enum CodingKeys: String, CodingKey {
        case field, value, display
        case toolName = "tool_name"
    }
}
