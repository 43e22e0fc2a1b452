import RalphAPI

/// One server-sent event of a streamed reply, as both real APIs send them: `event: <name>` and `data: <json>`.
public struct ServerSentEvent: Sendable {
    /// The `event:` name, which is also the payload's `type`.
    public var name: String
    /// The `data:` payload.
    public var data: JSONValue

    public init(name: String, data: JSONValue) {
        self.name = name
        self.data = data
    }

    /// `event: <name>\ndata: <json>\n\n`.
    public var bytes: [UInt8] {
        var out = Array("event: \(name)\ndata: ".utf8)
        JSONWriter.write(data, into: &out)
        out.append(contentsOf: [0x0A, 0x0A])
        return out
    }
}
