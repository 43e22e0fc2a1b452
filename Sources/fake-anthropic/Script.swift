import RalphAPI

/// One content block of a scripted reply, in the order the script wrote it.
enum Block: Sendable {
    /// `say <text>`: a `text` block.
    case text(String)
    /// `think <text>`: a `thinking` block (deltas, then a signature).
    case thinking(String)
    /// `tool <Name> <json>` and its shorthands `bash` and `agent`: a `tool_use` block.
    case toolUse(name: String, input: JSONValue)
}

/// How a streamed reply ends.
enum Ending: Sendable {
    /// All events, through `message_stop`.
    case complete
    /// `hang`: `message_start` and one delta, then silence until the client goes away.
    case hang
    /// `cut`: `message_start` and one delta, then the connection is closed mid-response.
    case cut
}

/// An HTTP error a step answers with (`error`, or `fail` for its first `count` requests).
struct ScriptedError: Sendable {
    var status: Int
    var message: String?
}

/// `fail <status> <n>`: an error for the first `count` requests of a step, counted per (prompt, step).
struct Failure: Sendable {
    var error: ScriptedError
    var count: Int
}

/// One API response of a script: the text between two `---` lines.
struct Step: Sendable {
    /// The content blocks, in order.
    var blocks: [Block] = []
    /// `usage <input> <output>`.
    var inputTokens = 100
    var outputTokens = 20
    /// `stop <reason>`; without it `tool_use` when a tool block is present, else `end_turn`.
    var stopReason: String?
    /// `delay <ms>`: the pause before each SSE event.
    var delayMilliseconds = 0
    /// `wait <ms>`: the pause before anything is answered.
    var waitMilliseconds = 0
    /// `error <status> [message]`: every request of this step fails so.
    var error: ScriptedError?
    /// `fail <status> <n>`: the first `n` requests of this step fail so.
    var failure: Failure?
    /// `hang` or `cut`; the last one written wins.
    var ending = Ending.complete

    /// The stop_reason the response carries.
    var effectiveStopReason: String {
        if let stopReason { return stopReason }
        let usesTool = blocks.contains { if case .toolUse = $0 { true } else { false } }
        return usesTool ? "tool_use" : "end_turn"
    }
}

/// A script mistake, reported to the client as a 400 `invalid_request_error` so a typo in a test is loud.
struct ScriptError: Error, Sendable {
    var message: String
}

/// The reply plan a prompt makes: a `#model` script, or one `say Echo: …` step for any other prompt.
struct Script: Sendable {
    /// The steps in order; step n answers the request that has n assistant messages after the prompt.
    var steps: [Step]

    /// The first line that marks a prompt as a script.
    static let marker = "#model"

    /// The plan for `prompt`. Throws a ``ScriptError`` naming the first bad line of a script.
    static func plan(for prompt: String) throws(ScriptError) -> Script {
        var lines = prompt.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = lines.first, first.trimmingTrailingWhitespace() == marker else {
            let flat = prompt.replacing("\r\n", with: " ").replacing("\n", with: " ").replacing("\r", with: " ")
            return Script(steps: [Step(blocks: [.text("Echo: " + String(flat.prefix(300)))])])
        }
        lines.removeFirst()
        var steps: [Step] = []
        var current = Step()
        var empty = true
        for (offset, raw) in lines.enumerated() {
            let line = raw.trimmingWhitespace()
            if line.isEmpty { continue }
            if line == "---" {
                guard !empty else { throw ScriptError(message: "script step \(steps.count + 1) has no commands (line \(offset + 2))") }
                steps.append(current)
                current = Step()
                empty = true
                continue
            }
            do {
                try Command.apply(line, to: &current)
            } catch {
                throw ScriptError(message: "script line \(offset + 2) \"\(line)\": \(error.message)")
            }
            empty = false
        }
        guard !empty else { throw ScriptError(message: "script step \(steps.count + 1) has no commands") }
        steps.append(current)
        return Script(steps: steps)
    }

    /// The step answering request number `index` (0-based); `say Done.` past the end. `{turn}` in a text becomes
    /// `turn` (the conversation's number of prompts), so the same script gives different replies turn after turn.
    func step(_ index: Int, turn: Int) -> Step {
        var step = index < steps.count ? steps[index] : Step(blocks: [.text("Done.")])
        step.blocks = step.blocks.map { block in
            if case .text(let text) = block { return .text(text.replacing("{turn}", with: String(turn))) }
            return block
        }
        return step
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and carriage returns.
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
        return String(s)
    }

    /// Without trailing spaces, tabs and carriage returns.
    func trimmingTrailingWhitespace() -> String {
        var s = Substring(self)
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
        return String(s)
    }
}
