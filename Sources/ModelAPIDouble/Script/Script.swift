// The script language both model API doubles (fake-anthropic, fake-openai) answer in: the test writes the model's
// replies into the prompt itself, and each double turns them into its own wire shapes.
//
// - A prompt whose first line is `#model` (trailing spaces allowed) is a script: lines `---` separate steps, step n
//   answers the request that has n model responses after the prompt, a step past the end answers `say Done.`. Any
//   other prompt is answered `Echo: <prompt on one line, 300 characters>`.
// - Commands of a step, one a line (blank lines skipped; an unknown command or bad arguments anywhere in the script
//   make the double answer 400 invalid_request_error naming the line). `\n` is a newline and `\\` a backslash in the
//   texts marked "unescaped"; `{turn}` in a `say` is the number of user prompts in the conversation so far.
//     say <text>                        text, streamed word by word (unescaped)
//     think <text>                      reasoning the model shows (unescaped)
//     tool <Name> <json object>         a call of the tool <Name> with that input
//     bash <command>                    run a shell command with the backend's shell tool (taken verbatim)
//     write <path> :: <content>         create or overwrite a file (content unescaped)
//     edit <path> :: <old> :: <new>     replace <old> by <new> in a file (both unescaped)
//     agent <description> :: <prompt>   start a sub-agent with that prompt (unescaped), where the backend has one
//     usage <input> <output> [<cached> [<reasoning>]]
//                                       token counts (default 100 and 20, then 0 and 0)
//     stop <reason>                     how the response ends (e.g. max_tokens); see each double
//     delay <ms>                        pause before each streamed event
//     wait <ms>                         pause before answering at all
//     error <status> [message]          answer every request of this step with that HTTP error
//     fail <status> <n>                 the first n requests of this step (per prompt and step, in memory) fail so
//     hang                              start the answer, then send nothing until the client goes away
//     cut                               start the answer, then drop the connection
import RalphAPI

/// One piece of a scripted reply, in the order the script wrote it. Each double maps it to its own wire shape.
public enum Block: Sendable, Equatable {
    /// `say <text>`.
    case text(String)
    /// `think <text>`.
    case thinking(String)
    /// `tool <Name> <json>`.
    case tool(name: String, input: JSONValue)
    /// `bash <command>`.
    case bash(String)
    /// `write <path> :: <content>`.
    case write(path: String, content: String)
    /// `edit <path> :: <old> :: <new>`.
    case edit(path: String, old: String, new: String)
    /// `agent <description> :: <prompt>`.
    case agent(description: String, prompt: String)

    /// Whether the block calls a tool (everything but text and thinking).
    public var callsTool: Bool {
        switch self {
        case .text, .thinking: false
        default: true
        }
    }
}

/// How a streamed reply ends.
public enum Ending: Sendable {
    /// All events, through the last one.
    case complete
    /// `hang`: the opening events and one delta, then silence until the client goes away.
    case hang
    /// `cut`: the opening events and one delta, then the connection is closed mid-response.
    case cut
}

/// An HTTP error a step answers with (`error`, or `fail` for its first `count` requests).
public struct ScriptedError: Sendable {
    public var status: Int
    public var message: String?
}

/// `fail <status> <n>`: an error for the first `count` requests of a step, counted per (prompt, step).
public struct Failure: Sendable {
    public var error: ScriptedError
    public var count: Int
}

/// One API response of a script: the text between two `---` lines.
public struct Step: Sendable {
    /// The blocks, in order.
    public var blocks: [Block]
    /// `usage <input> <output> [<cached> [<reasoning>]]`.
    public var inputTokens = 100
    public var outputTokens = 20
    public var cachedTokens = 0
    public var reasoningTokens = 0
    /// `stop <reason>`; each double has its default.
    public var stopReason: String?
    /// `delay <ms>`: the pause before each SSE event.
    public var delayMilliseconds = 0
    /// `wait <ms>`: the pause before anything is answered.
    public var waitMilliseconds = 0
    /// `error <status> [message]`: every request of this step fails so.
    public var error: ScriptedError?
    /// `fail <status> <n>`: the first `n` requests of this step fail so.
    public var failure: Failure?
    /// `hang` or `cut`; the last one written wins.
    public var ending = Ending.complete

    public init(blocks: [Block] = []) { self.blocks = blocks }

    /// Whether any block calls a tool.
    public var callsTool: Bool { blocks.contains(where: \.callsTool) }
}

/// A script mistake, reported to the client as a 400 `invalid_request_error` so a typo in a test is loud.
public struct ScriptError: Error, Sendable {
    public var message: String

    public init(message: String) { self.message = message }
}

/// The reply plan a prompt makes: a `#model` script, or one `say Echo: …` step for any other prompt.
public struct Script: Sendable {
    /// The steps in order; step n answers the request that has n model responses after the prompt.
    public var steps: [Step]

    /// The first line that marks a prompt as a script.
    public static let marker = "#model"

    /// The plan for `prompt`. Throws a ``ScriptError`` naming the first bad line of a script.
    public static func plan(for prompt: String) throws(ScriptError) -> Script {
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
    public func step(_ index: Int, turn: Int) -> Step {
        var step = index < steps.count ? steps[index] : Step(blocks: [.text("Done.")])
        step.blocks = step.blocks.map { block in
            if case .text(let text) = block { return .text(text.replacing("{turn}", with: String(turn))) }
            return block
        }
        return step
    }
}
