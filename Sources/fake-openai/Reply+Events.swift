import ModelAPIDouble
import RalphAPI

extension Reply {
    /// Every event of the streamed answer, in the real API's order, each with its `sequence_number`:
    /// `response.created`, `response.in_progress`, each item's events, then `response.completed` (or
    /// `response.incomplete` after `stop max_output_tokens`).
    var events: [ServerSentEvent] {
        var payloads: [JSONObject] = [
            object("response.created", ["response": response(status: "in_progress")]),
            object("response.in_progress", ["response": response(status: "in_progress")]),
        ]
        for (index, item) in items.enumerated() {
            payloads.append(object("response.output_item.added", ["output_index": .int(index), "item": Self.json(item, done: false)]))
            payloads += Self.bodyEvents(of: item, at: index)
            payloads.append(object("response.output_item.done", ["output_index": .int(index), "item": Self.json(item, done: true)]))
        }
        let finished = finished
        let kind = finished.objectValue?["status"]?.stringValue == "incomplete" ? "response.incomplete" : "response.completed"
        payloads.append(object(kind, ["response": finished]))
        return Self.numbered(payloads)
    }

    /// The events a `hang` or `cut` sends before it stalls or breaks: everything up to and including the first
    /// delta (a message of "…" when the step has no item).
    var openingEvents: [ServerSentEvent] {
        let all = events
        if let delta = all.firstIndex(where: { $0.name.hasSuffix(".delta") }) {
            return Array(all[...delta])
        }
        let id = Identifier.make("msg_", length: 32)
        let start = all.prefix(2).map { $0.data.objectValue ?? JSONObject() }
        let message = Item.message(id: id, text: "…")
        return Self.numbered(
            start + [object("response.output_item.added", ["output_index": 0, "item": Self.json(message, done: false)])]
                + Self.bodyEvents(of: message, at: 0).prefix(2))
    }

    /// The events between an item's `added` and `done`: text parts and their deltas, a reasoning summary, a call's
    /// arguments or input.
    static func bodyEvents(of item: Item, at index: Int) -> [JSONObject] {
        let position: [(String, JSONValue)] = [("output_index", .int(index))]
        switch item {
        case .message(let id, let text):
            let at = [("item_id", JSONValue.string(id))] + position + [("content_index", 0)]
            let part: JSONValue = ["type": "output_text", "annotations": [], "logprobs": [], "text": .string(text)]
            let empty: JSONValue = ["type": "output_text", "annotations": [], "logprobs": [], "text": ""]
            return [object("response.content_part.added", at + [("part", empty)])]
                + text.words().map { object("response.output_text.delta", at + [("delta", .string($0)), ("logprobs", [])]) }
                + [
                    object("response.output_text.done", at + [("text", .string(text)), ("logprobs", [])]),
                    object("response.content_part.done", at + [("part", part)]),
                ]
        case .reasoning(let id, let summary, _):
            let at = [("item_id", JSONValue.string(id))] + position + [("summary_index", 0)]
            return [object("response.reasoning_summary_part.added", at + [("part", ["type": "summary_text", "text": ""])])]
                + summary.words().map { object("response.reasoning_summary_text.delta", at + [("delta", .string($0))]) }
                + [
                    object("response.reasoning_summary_text.done", at + [("text", .string(summary))]),
                    object("response.reasoning_summary_part.done", at + [("part", ["type": "summary_text", "text": .string(summary)])]),
                ]
        case .functionCall(let id, _, _, let arguments):
            let at = [("item_id", JSONValue.string(id))] + position
            return arguments.pieces().map { object("response.function_call_arguments.delta", at + [("delta", .string($0))]) }
                + [object("response.function_call_arguments.done", at + [("arguments", .string(arguments))])]
        case .customToolCall(let id, _, _, let input):
            let at = [("item_id", JSONValue.string(id))] + position
            return input.pieces().map { object("response.custom_tool_call_input.delta", at + [("delta", .string($0))]) }
                + [object("response.custom_tool_call_input.done", at + [("input", .string(input))])]
        }
    }

    /// The payloads as events named by their type, each given the next `sequence_number` from 0.
    static func numbered(_ payloads: [JSONObject]) -> [ServerSentEvent] {
        payloads.enumerated().map { number, payload in
            var payload = payload
            payload["sequence_number"] = .int(number)
            return ServerSentEvent(name: payload["type"]?.stringValue ?? "", data: .object(payload))
        }
    }
}

/// A payload `{"type": type, …members}`.
private func object(_ type: String, _ members: [(String, JSONValue)]) -> JSONObject {
    JSONObject([(key: "type", value: .string(type))] + members.map { (key: $0.0, value: $0.1) })
}

/// A payload from a dictionary literal (its order kept).
private func object(_ type: String, _ members: JSONValue) -> JSONObject {
    object(type, (members.objectValue?.members ?? []).map { ($0.key, $0.value) })
}
