import RalphAPI

/// One line of `$FAKE_OPENAI_LOG`: what a request asked and what it was answered.
struct LogEntry: Sendable {
    /// The request's method and path, without the query string.
    var method: String
    var path: String
    var model: String?
    var stream: Bool?
    /// The first 200 characters of the prompt.
    var script: String?
    var step: Int?
    /// 1 for the first request of this (prompt, step), 2 for the second…
    var attempt: Int?
    /// The HTTP status answered (200 also for `hang` and `cut`).
    var status = 200
    /// ``Conversation/tools``.
    var tools: [String] = []
    /// ``Conversation/last``.
    var last: [JSONValue] = []

    var json: JSONValue {
        [
            "method": .string(method), "path": .string(path), "model": model.map(JSONValue.string) ?? nil,
            "stream": stream.map(JSONValue.bool) ?? nil, "script": script.map { .string(String($0.prefix(200))) } ?? nil,
            "step": step.map(JSONValue.int) ?? nil, "attempt": attempt.map(JSONValue.int) ?? nil, "status": .int(status),
            "tools": .array(tools.map(JSONValue.string)), "last": .array(last),
        ]
    }
}
