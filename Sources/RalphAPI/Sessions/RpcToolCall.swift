/// A tool call in progress, from ralph's RPC `tool_call_start` (it leaves ``RpcTelemetry/toolCalls`` at its
/// `tool_call_end`).
public struct RpcToolCall: Codable, Hashable, Sendable {
    public var id: String
    public var name: String
    /// What the agent passed to the tool, as ralph sent it.
    public var input: JSONValue?
    public var iteration: Int?
    public var startedAt: String

    public init(id: String, name: String, input: JSONValue? = nil, iteration: Int? = nil, startedAt: String) {
        self.id = id
        self.name = name
        self.input = input
        self.iteration = iteration
        self.startedAt = startedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name, input, iteration
        case startedAt = "started_at"
    }
}
