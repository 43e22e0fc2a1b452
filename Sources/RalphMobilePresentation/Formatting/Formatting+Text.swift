import Foundation
import RalphAPI

extension Formatting {
    /// Text on one line: runs of whitespace become one space, and text longer than `max` characters is cut with `…`.
    public static func oneLine(_ text: String, max: Int = 90) -> String {
        let words = text.split(whereSeparator: { $0.isWhitespace || $0.isNewline })
        let line = words.joined(separator: " ")
        guard line.count > max, max > 0 else { return line }
        return String(line.prefix(max - 1)) + "…"
    }

    /// An event's payload as people read it: JSON (a non-string payload, or a string holding a JSON object or array)
    /// indented two spaces per level, keys in the order written; plain text as it is; "" when there is none.
    public static func payloadText(_ event: WorkflowEvent) -> String {
        if let json = event.payloadJSON, !json.isNull { return prettyJSON(json) }
        guard let payload = event.payload else { return "" }
        let trimmed = payload.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("{") || trimmed.hasPrefix("["), let value = try? JSONParser.parse(trimmed) {
            return prettyJSON(value)
        }
        return payload
    }

    /// JSON indented two spaces per level, object keys in their order.
    public static func prettyJSON(_ value: JSONValue) -> String {
        var out = ""
        writePretty(value, indent: 0, into: &out)
        return out
    }

    private static func writePretty(_ value: JSONValue, indent: Int, into out: inout String) {
        let pad = String(repeating: "  ", count: indent + 1)
        let closePad = String(repeating: "  ", count: indent)
        switch value {
        case .array(let items):
            guard !items.isEmpty else {
                out += "[]"
                return
            }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += pad
                writePretty(item, indent: indent + 1, into: &out)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += closePad + "]"
        case .object(let object):
            guard !object.isEmpty else {
                out += "{}"
                return
            }
            out += "{\n"
            for (index, member) in object.members.enumerated() {
                out += pad + JSONWriter.string(.string(member.key)) + ": "
                writePretty(member.value, indent: indent + 1, into: &out)
                out += index == object.members.count - 1 ? "\n" : ",\n"
            }
            out += closePad + "}"
        default:
            out += JSONWriter.string(value)
        }
    }
}
