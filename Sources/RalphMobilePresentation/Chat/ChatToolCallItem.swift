import Foundation
import RalphAPI

/// How a tool call's approval was answered, as its tool call shows it.
public struct ChatToolDecision: Hashable, Sendable {
    /// `allow`, `allow_session`, `deny`, or `cancelled` (its turn ended first).
    public var decision: String
    /// A key id, `local`, `rule <id>` (a session rule allowed it without asking) or `system`.
    public var decidedBy: String?
    public var message: String?

    public init(decision: String, decidedBy: String?, message: String?) {
        self.decision = decision
        self.decidedBy = decidedBy
        self.message = message
    }

    /// The decision of a decided approval (nil while it is pending).
    public init?(_ approval: Approval) {
        switch approval.state {
        case .pending: return nil
        case .cancelled: self.init(decision: "cancelled", decidedBy: approval.decidedBy, message: approval.message)
        case .allowed, .denied:
            self.init(decision: approval.decision?.rawValue ?? (approval.state == .denied ? "deny" : "allow"), decidedBy: approval.decidedBy, message: approval.message)
        }
    }

    /// True when a session rule allowed it and nobody was asked.
    public var byRule: Bool { decidedBy?.hasPrefix("rule ") == true }

    /// `allowed`, `allowed for the session`, `denied`, `cancelled (its turn ended)`.
    public static func words(_ decision: String) -> String {
        switch decision {
        case "allow": "allowed"
        case "allow_session": "allowed for the session"
        case "deny": "denied"
        case "cancelled": "cancelled (its turn ended)"
        default: decision.isEmpty ? "answered" : decision
        }
    }

    /// The line under a tool call: `Approval: allowed for the session by k_1a2b — “ok”`, or for a call a rule allowed
    /// `Approval: not asked — allowed by the session rule Bash(ls).`
    public var line: String {
        if byRule { return "Approval: not asked — " + (message.flatMap { $0.isEmpty ? nil : $0 } ?? "allowed by a session rule") + "." }
        var line = "Approval: " + Self.words(decision)
        if let by = decidedBy, by != "system" { line += " by " + by }
        if let message, !message.isEmpty { line += " — “" + message + "”" }
        return line
    }
}

/// A tool call as the chat shows it: one line saying what it does, its state, its input, and its output (a preview of
/// ``ChatToolCallItem/previewLimit`` characters when longer, with the whole text one tap away).
public struct ChatToolCallItem: Hashable, Sendable, Identifiable {
    public enum State: String, Hashable, Sendable {
        case running
        case awaitingApproval
        case done
        case failed
        case denied
        case cancelled
        /// The turn ended without a result for it.
        case noResult
    }

    /// Longer outputs are collapsed to this many characters.
    public static let previewLimit = 4000

    public let id: String
    public let name: String
    /// What the call does, in one line: Bash's command, the file of Read/Write/Edit, Grep's pattern …
    public let summary: String
    /// The whole input as indented JSON.
    public let inputText: String
    public let state: State
    /// The whole output, nil while there is none.
    public let output: String?
    public let isError: Bool
    public let decision: ChatToolDecision?
    /// The pending approval this call waits for.
    public let pendingApprovalID: String?
    /// What a file edit changed once it ran (from `tool_end`, or the stored call), one line per file.
    public let diffSummaries: [DiffSummary]
    private let diffs: [FileDiff]

    public init(_ call: ToolCall, turnRunning: Bool, pendingApprovalID: String?, decision: ChatToolDecision?) {
        id = call.toolUseId
        name = call.name
        summary = Self.summary(name: call.name, input: call.input)
        inputText = ChatFormat.prettyJSON(call.input)
        output = call.output
        isError = call.isError == true
        self.decision = decision
        self.pendingApprovalID = call.output == nil ? pendingApprovalID : nil
        diffs = call.diffs ?? []
        diffSummaries = diffs.enumerated().map { DiffSummary($1, index: $0) }
        if call.output != nil {
            state = isError ? (decision?.decision == "deny" ? .denied : .failed) : .done
        } else if decision?.decision == "deny" {
            state = .denied
        } else if decision?.decision == "cancelled" {
            state = .cancelled
        } else if self.pendingApprovalID != nil {
            state = .awaitingApproval
        } else {
            state = turnRunning ? .running : .noResult
        }
    }

    /// `running`, `needs approval`, `done`, `error`, `denied`, `cancelled`, `no result`.
    public var stateText: String {
        switch state {
        case .running: "running"
        case .awaitingApproval: "needs approval"
        case .done: "done"
        case .failed: "error"
        case .denied: "denied"
        case .cancelled: "cancelled"
        case .noResult: "no result"
        }
    }

    public var tone: ChatTone {
        switch state {
        case .running: .active
        case .awaitingApproval: .attention
        case .done: .success
        case .failed, .denied: .danger
        case .cancelled, .noResult: .neutral
        }
    }

    /// Under a call waiting for its approval: what the person can do about it.
    public func waitingText(canDecide: Bool) -> String? {
        guard state == .awaitingApproval else { return nil }
        return canDecide ? "The agent waits for your approval." : "Waiting for an operator to approve this."
    }

    // MARK: What a file edit changed

    /// Whether the call carries the diff of what it changed.
    public var hasDiffs: Bool { !diffSummaries.isEmpty }

    /// The heading above the diffs.
    public var diffTitle: String { "What it changed" }

    /// `notes.txt · +1 −1` (or `2 files · +3 −1`), beside the call's state.
    public var diffLine: String? { DiffSummary.line(diffSummaries) }

    /// The diffs as the diff view draws them (parsed here: read it where it is shown, in the opened call).
    public var diffFiles: [DiffFile] { diffs.enumerated().map { DiffFile($1, index: $0) } }

    public var reviewLabel: String { "Review" }
    public var reviewAccessibilityLabel: String { "Review the approval for \(name)" }

    /// `Output`, or `Error` for an error result.
    public var outputTitle: String { isError ? "Error" : "Output" }

    /// Whether the output is longer than the preview.
    public var isOutputLong: Bool { (output?.count ?? 0) > Self.previewLimit }

    /// The output as first shown: all of it, or its first ``previewLimit`` characters and `…`; `(empty)` for an empty one.
    public var outputPreview: String? {
        guard let output else { return nil }
        if output.isEmpty { return "(empty)" }
        return isOutputLong ? String(output.prefix(Self.previewLimit)) + "\n…" : output
    }

    /// `Show all 12,345 characters`, for a long output.
    public var showAllLabel: String? {
        guard isOutputLong, let output else { return nil }
        return "Show all \(ChatFormat.grouped(output.count)) characters"
    }

    /// `Show all 12,345 characters of the output of Bash`.
    public var showAllAccessibilityLabel: String? { showAllLabel.map { "\($0) of the output of \(name)" } }

    /// For VoiceOver: `Bash, ls -la, done`.
    public var accessibilityLabel: String { [name, summary, stateText, diffLine ?? ""].filter { !$0.isEmpty }.joined(separator: ", ") }

    /// One line that says what a tool call does: the command of Bash, the file of Read/Write/Edit, the pattern of
    /// Grep/Glob (with its path), the URL of WebFetch …; otherwise the first non-empty string of its input, or its JSON.
    public static func summary(name: String, input: JSONValue) -> String {
        guard let object = input.objectValue else {
            return input.isNull ? "" : ChatFormat.firstLine(ChatFormat.prettyJSON(input))
        }
        for key in ["command", "file_path", "notebook_path", "pattern", "path", "url", "query", "description", "prompt"] {
            guard let text = object[key]?.stringValue, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { continue }
            if key == "pattern", let path = object["path"]?.stringValue { return ChatFormat.firstLine(text + "  in " + path) }
            return ChatFormat.firstLine(text)
        }
        if let paths = object["paths"]?.arrayValue?.compactMap(\.stringValue), !paths.isEmpty {
            return ChatFormat.firstLine(paths.joined(separator: ", "))
        }
        for member in object.members {
            if let text = member.value.stringValue, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return ChatFormat.firstLine(text) }
        }
        return ChatFormat.truncated(JSONWriter.string(input), to: 140)
    }
}

/// The kind of emphasis a badge or a line has; the app maps each to a theme colour.
public enum ChatTone: String, Hashable, Sendable {
    case neutral
    case active
    case attention
    case warning
    case danger
    case success
}
