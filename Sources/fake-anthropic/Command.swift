import RalphAPI

/// The commands of a script step, one per line: `<name> <arguments>`.
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
            step.blocks.append(.text(unescape(try required(rest, "say needs a text"))))
        case "think":
            step.blocks.append(.thinking(unescape(try required(rest, "think needs a text"))))
        case "tool":
            step.blocks.append(try tool(rest))
        case "bash":
            let command = try required(rest, "bash needs a command")
            step.blocks.append(.toolUse(name: "Bash", input: ["command": .string(command), "description": .string("Run \(command)")]))
        case "agent":
            step.blocks.append(try agent(rest))
        case "usage":
            let numbers = try counts(rest, 2, "usage needs two token counts: usage <input> <output>")
            step.inputTokens = numbers[0]
            step.outputTokens = numbers[1]
        case "stop":
            step.stopReason = try required(rest, "stop needs a reason, e.g. stop max_tokens")
        case "delay":
            step.delayMilliseconds = try counts(rest, 1, "delay needs milliseconds: delay <ms>")[0]
        case "wait":
            step.waitMilliseconds = try counts(rest, 1, "wait needs milliseconds: wait <ms>")[0]
        case "error":
            let (status, message) = statusAndRest(rest)
            guard let status else { throw ScriptError(message: "error needs an HTTP status 400-599: error <status> [message]") }
            step.error = ScriptedError(status: status, message: message.isEmpty ? nil : message)
        case "fail":
            let numbers = try counts(rest, 2, "fail needs a status and a count: fail <status> <n>")
            guard (400...599).contains(numbers[0]) else { throw ScriptError(message: "fail needs an HTTP status 400-599") }
            step.failure = Failure(error: ScriptedError(status: numbers[0], message: nil), count: numbers[1])
        case "hang", "cut":
            guard rest.isEmpty else { throw ScriptError(message: "\(name) takes no arguments") }
            step.ending = name == "hang" ? .hang : .cut
        default:
            throw ScriptError(message: "unknown command \"\(name)\" (known: say think tool bash agent usage stop delay wait error fail hang cut)")
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
        return .toolUse(name: name, input: input)
    }

    /// `agent <description> :: <prompt>`: the Agent tool with a general-purpose sub-agent.
    private static func agent(_ rest: String) throws(ScriptError) -> Block {
        guard let separator = rest.range(of: "::") else {
            throw ScriptError(message: "agent needs a description and a prompt: agent <description> :: <prompt>")
        }
        let description = String(rest[..<separator.lowerBound]).trimmingWhitespace()
        let prompt = unescape(String(rest[separator.upperBound...]).trimmingWhitespace())
        guard !description.isEmpty, !prompt.isEmpty else {
            throw ScriptError(message: "agent needs a description and a prompt: agent <description> :: <prompt>")
        }
        return .toolUse(
            name: "Agent",
            input: ["description": .string(description), "prompt": .string(prompt), "subagent_type": "general-purpose"])
    }

    /// `rest` itself, or the error when it is empty.
    private static func required(_ rest: String, _ message: String) throws(ScriptError) -> String {
        guard !rest.isEmpty else { throw ScriptError(message: message) }
        return rest
    }

    /// Exactly `n` non-negative integers separated by spaces.
    private static func counts(_ rest: String, _ n: Int, _ message: String) throws(ScriptError) -> [Int] {
        let words = rest.split(whereSeparator: { $0 == " " || $0 == "\t" })
        let numbers = words.compactMap { Int($0) }.filter { $0 >= 0 }
        guard words.count == n, numbers.count == n else { throw ScriptError(message: message) }
        return numbers
    }

    /// A leading HTTP error status (400-599) and the text after it.
    private static func statusAndRest(_ rest: String) -> (Int?, String) {
        let parts = rest.split(separator: " ", maxSplits: 1)
        guard let first = parts.first, let status = Int(first), (400...599).contains(status) else { return (nil, rest) }
        return (status, parts.count > 1 ? String(parts[1]).trimmingWhitespace() : "")
    }

    /// `\n` → newline, `\\` → backslash; any other backslash stays as written. One level of `\\n` therefore survives
    /// as `\n` for a script nested in an `agent` prompt.
    static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var out = ""
        var iterator = text.makeIterator()
        while let c = iterator.next() {
            guard c == "\\" else {
                out.append(c)
                continue
            }
            switch iterator.next() {
            case "n"?: out.append("\n")
            case "\\"?: out.append("\\")
            case let other?: out.append("\\"); out.append(other)
            case nil: out.append("\\")
            }
        }
        return out
    }
}
