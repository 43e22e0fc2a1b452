import Foundation
import RalphAPI

/// One event line of a ralph run file, decoded leniently.
///
/// ralph's file has two writers: the orchestrator (`ts`, `iteration`, `hat`, `topic`, `triggered`, `payload`,
/// `blocked_count`) and `ralph emit` (`payload`, `topic`, `ts`). Every field but `topic` may be missing, and
/// `payload` may be a string, an object, any other JSON value, or null. All fields are kept as written.
public struct RalphEvent: Sendable, Hashable {
    /// The event's id: its 1-based line number in the run file.
    public let id: Int
    /// The line's fields, in written order.
    public let fields: JSONObject
    public let topic: String

    public init(id: Int, fields: JSONObject, topic: String) {
        self.id = id
        self.fields = fields
        self.topic = topic
    }

    /// `ts` exactly as written.
    public var ts: String? { fields["ts"]?.stringValue }
    /// `ts` parsed (any RFC 3339 form).
    public var date: Date? { ts.flatMap(Timestamp.parse) }
    public var iteration: Int? { fields["iteration"]?.intValue }
    public var hat: String? { fields["hat"]?.stringValue }
    public var triggered: String? {
        guard let t = fields["triggered"]?.stringValue, !t.isEmpty else { return nil }
        return t
    }
    public var payload: JSONValue? { fields["payload"] }

    /// The payload as text: a string payload as is, any other non-null value as compact JSON.
    public var payloadText: String? {
        switch fields["payload"] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let value?: return JSONWriter.string(value)
        }
    }

    /// Written by the orchestrator (has `iteration` and `hat`), as opposed to `ralph emit` or a tool.
    public var isOrchestratorRecord: Bool { iteration != nil && hat != nil }
}

/// What one line of a run file holds.
public enum DecodedLine: Sendable, Equatable {
    case event(RalphEvent)
    /// Empty or whitespace only. Still consumes a line number.
    case blank
    /// Not an event (invalid JSON, not an object, no string `topic`, too long). Still consumes a line number.
    case malformed(reason: String)
}

/// Decodes run-file lines.
public enum EventLineDecoder {
    /// Decodes the bytes of one line (without its newline; a trailing CR is tolerated).
    public static func decode(_ line: UnsafeBufferPointer<UInt8>, id: Int) -> DecodedLine {
        var start = 0
        var end = line.count
        while start < end, isSpace(line[start]) { start += 1 }
        while end > start, isSpace(line[end - 1]) { end -= 1 }
        if start == end { return .blank }
        let trimmed = UnsafeBufferPointer(rebasing: line[start..<end])
        let value: JSONValue
        do {
            value = try JSONParser.parse(trimmed)
        } catch {
            return .malformed(reason: "invalid JSON: \(error)")
        }
        guard case .object(let object) = value else { return .malformed(reason: "not a JSON object") }
        guard case .string(let topic)? = object["topic"], !topic.isEmpty else {
            return .malformed(reason: "no string topic")
        }
        return .event(RalphEvent(id: id, fields: object, topic: topic))
    }

    /// Decodes a line given as bytes.
    public static func decode(_ line: [UInt8], id: Int) -> DecodedLine {
        line.withUnsafeBufferPointer { decode($0, id: id) }
    }

    /// Decodes a line given as a string.
    public static func decode(_ line: String, id: Int) -> DecodedLine {
        decode(Array(line.utf8), id: id)
    }

    @inline(__always)
    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
}
