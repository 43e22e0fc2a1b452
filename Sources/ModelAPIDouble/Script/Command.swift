import RalphAPI

/// The commands of a script step, one per line: `<name> <arguments>` (the language is described in Script.swift).
enum Command {
    /// Reads one trimmed, non-empty script line into `step`. Throws a ``ScriptError`` (without the line, which the
    /// caller adds) for an unknown command or bad arguments.
    static func apply(_ line: String, to step: inout Step) throws(ScriptError) {
        let name: String
        let rest: String
        if let space = line.firstIndex(where: { $0 == " " || $0 == "\t" }) {
            name = String(line[..<space])
            rest = String(line[line.index(after: space)...]).trimmingWhitespace()
        } else {
            name = line
            rest = ""
        }
        switch name {
        case "say":
            step.blocks.append(.text(try required(rest, "say needs a text").unescaped()))
        case "think":
            step.blocks.append(.thinking(try required(rest, "think needs a text").unescaped()))
        case "tool":
            step.blocks.append(try tool(rest))
        case "bash":
            step.blocks.append(.bash(try required(rest, "bash needs a command")))
        case "write":
            let parts = try fields(rest, 2, "write needs a path and a content: write <path> :: <content>")
            step.blocks.append(.write(path: parts[0], content: parts[1].unescaped()))
        case "edit":
            let parts = try fields(rest, 3, "edit needs a path, an old and a new text: edit <path> :: <old> :: <new>")
            guard !parts[1].isEmpty else { throw ScriptError(message: "edit needs a non-empty old text") }
            step.blocks.append(.edit(path: parts[0], old: parts[1].unescaped(), new: parts[2].unescaped()))
        case "agent":
            let parts = try fields(rest, 2, "agent needs a description and a prompt: agent <description> :: <prompt>")
            guard !parts[1].isEmpty else {
                throw ScriptError(message: "agent needs a description and a prompt: agent <description> :: <prompt>")
            }
            step.blocks.append(.agent(description: parts[0], prompt: parts[1].unescaped()))
        default:
            try applySetting(name, rest, to: &step)
        }
    }

    /// The commands that set how the step is answered rather than what it says.
    private static func applySetting(_ name: String, _ rest: String, to step: inout Step) throws(ScriptError) {
        switch name {
        case "usage":
            let usage = "usage needs two to four token counts: usage <input> <output> [<cached> [<reasoning>]]"
            let numbers = try counts(rest, 2...4, usage)
            step.inputTokens = numbers[0]
            step.outputTokens = numbers[1]
            step.cachedTokens = numbers.count > 2 ? numbers[2] : 0
            step.reasoningTokens = numbers.count > 3 ? numbers[3] : 0
        case "stop":
            step.stopReason = try required(rest, "stop needs a reason, e.g. stop max_tokens")
        case "delay":
            step.delayMilliseconds = try counts(rest, 1...1, "delay needs milliseconds: delay <ms>")[0]
        case "wait":
            step.waitMilliseconds = try counts(rest, 1...1, "wait needs milliseconds: wait <ms>")[0]
        case "error":
            let (status, message) = statusAndRest(rest)
            guard let status else { throw ScriptError(message: "error needs an HTTP status 400-599: error <status> [message]") }
            step.error = ScriptedError(status: status, message: message.isEmpty ? nil : message)
        case "fail":
            let numbers = try counts(rest, 2...2, "fail needs a status and a count: fail <status> <n>")
            guard (400...599).contains(numbers[0]) else { throw ScriptError(message: "fail needs an HTTP status 400-599") }
            step.failure = Failure(error: ScriptedError(status: numbers[0], message: nil), count: numbers[1])
        case "hang", "cut":
            guard rest.isEmpty else { throw ScriptError(message: "\(name) takes no arguments") }
            step.ending = name == "hang" ? .hang : .cut
        default:
            throw ScriptError(
                message:
                    "unknown command \"\(name)\" (known: say think tool bash write edit agent usage stop delay wait error fail hang cut)")
        }
    }

    /// `tool <Name> <json object>`.
    private static func tool(_ rest: String) throws(ScriptError) -> Block {
        let usage = "tool needs a name and a JSON object: tool <Name> {\"key\": \"value\"}"
        guard let space = rest.firstIndex(of: " ") else { throw ScriptError(message: usage) }
        let name = String(rest[..<space])
        let json = String(rest[rest.index(after: space)...])
        let input: JSONValue
        do {
            input = try JSONParser.parse(json)
        } catch {
            throw ScriptError(message: "tool input is not JSON: \(error)")
        }
        guard case .object = input else { throw ScriptError(message: usage) }
        return .tool(name: name, input: input)
    }

    /// `rest` split at its first `n - 1` `::`, each part trimmed (still escaped); the first part must not be empty.
    private static func fields(_ rest: String, _ n: Int, _ message: String) throws(ScriptError) -> [String] {
        var parts: [String] = []
        var remaining = Substring(rest)
        while parts.count < n - 1, let separator = remaining.range(of: "::") {
            parts.append(String(remaining[..<separator.lowerBound]).trimmingWhitespace())
            remaining = remaining[separator.upperBound...]
        }
        parts.append(String(remaining).trimmingWhitespace())
        guard parts.count == n, !parts[0].isEmpty else { throw ScriptError(message: message) }
        return parts
    }

    /// `rest` itself, or the error when it is empty.
    private static func required(_ rest: String, _ message: String) throws(ScriptError) -> String {
        guard !rest.isEmpty else { throw ScriptError(message: message) }
        return rest
    }

    /// Between `range.lowerBound` and `range.upperBound` non-negative integers separated by spaces.
    private static func counts(_ rest: String, _ range: ClosedRange<Int>, _ message: String) throws(ScriptError) -> [Int] {
        let words = rest.split(whereSeparator: { $0 == " " || $0 == "\t" })
        let numbers = words.compactMap { Int($0) }.filter { $0 >= 0 }
        guard range.contains(words.count), numbers.count == words.count else { throw ScriptError(message: message) }
        return numbers
    }

    /// A leading HTTP error status (400-599) and the text after it.
    private static func statusAndRest(_ rest: String) -> (Int?, String) {
        let parts = rest.split(separator: " ", maxSplits: 1)
        guard let first = parts.first, let status = Int(first), (400...599).contains(status) else { return (nil, rest) }
        return (status, parts.count > 1 ? String(parts[1]).trimmingWhitespace() : "")
    }
}
