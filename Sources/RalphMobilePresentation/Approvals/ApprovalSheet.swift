import Foundation
import RalphAPI
import RalphMobileKit

/// What the approval sheet shows for one tool call, and the words of its buttons.
///
/// It puts first what a person must read (Bash's command, the file, the URL), then the CLI's description of the call, the
/// path that made it ask, and the whole input. "Allow for this session" names exactly the rule the server keeps
/// (``RalphAPI/Approval/sessionRule``), never the CLI's own suggestions (a permission mode, a folder). Viewers see the
/// same without buttons.
public struct ApprovalSheet: Hashable, Sendable, Identifiable {
    /// A rule longer than this is described in words on the button and shown in full above it.
    public static let ruleInButtonLimit = 80
    /// The server refuses longer deny messages.
    public static let maxMessageBytes = 4096

    /// The part of the input to read first.
    public struct Prominent: Hashable, Sendable {
        /// `Command`, `Command (Task)`, `File` or `URL`.
        public let label: String
        public let text: String
        /// Bash's own `description` of its command.
        public let note: String?
    }

    public let approval: Approval
    public let canDecide: Bool
    /// The conversation's title, in the inbox.
    public let conversationTitle: String?
    /// What a file edit will change, one line per file (`notes.txt · +1 −1`); empty for other tools.
    public let diffSummaries: [DiffSummary]

    public init(_ approval: Approval, canDecide: Bool, conversationTitle: String? = nil) {
        self.approval = approval
        self.canDecide = canDecide && approval.state == .pending
        self.conversationTitle = conversationTitle
        diffSummaries = (approval.diffs ?? []).enumerated().map { DiffSummary($1, index: $0) }
    }

    public var id: String { approval.id }
    public var toolName: String { approval.toolName }

    /// `Allow Bash?` for someone who may decide, else `Bash`.
    public var title: String { canDecide ? "Allow \(approval.toolName)?" : approval.toolName }

    /// `In Fix the tests · asked 5m ago`, or `asked just now`.
    public func meta(now: Date) -> String {
        let asked = ChatFormat.asked(approval.createdAt, now: now)
        return conversationTitle.map { "In \($0) · \(asked)" } ?? asked
    }

    public var prominent: Prominent? {
        guard let input = approval.input.objectValue else { return nil }
        if let command = input["command"]?.stringValue {
            let note = input["description"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            let plain = approval.toolName == "Bash" || approval.toolName == "shell"
            return Prominent(label: plain ? "Command" : "Command (\(approval.toolName))", text: command, note: note)
        }
        if let paths = input["paths"]?.arrayValue?.compactMap(\.stringValue), !paths.isEmpty {
            return Prominent(label: paths.count == 1 ? "File" : "Files", text: paths.joined(separator: "\n"), note: nil)
        }
        if let path = input["file_path"]?.stringValue ?? input["notebook_path"]?.stringValue ?? input["path"]?.stringValue {
            return Prominent(label: "File", text: path, note: nil)
        }
        if let url = input["url"]?.stringValue { return Prominent(label: "URL", text: url, note: nil) }
        return nil
    }

    /// The CLI's description of the call, with the tool's display name (`Bash: Create file`); nil when it says nothing
    /// more than the input's own description.
    public var describedAs: String? {
        guard let text = approval.description?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        if approval.input.objectValue?["description"]?.stringValue == approval.description { return nil }
        return (approval.displayName ?? approval.toolName) + ": " + text
    }

    /// `Path that made it ask: /work/app/newfile`.
    public var blockedPathLine: String? { approval.blockedPath.map { "Path that made it ask: " + $0 } }
    /// `Why it asks: …`.
    public var reasonLine: String? { approval.reason.flatMap { $0.isEmpty ? nil : "Why it asks: " + $0 } }

    /// The whole input, indented; `(no input)` when empty.
    public var fullInput: String {
        let text = ChatFormat.prettyJSON(approval.input)
        return text.isEmpty || text == "{}" ? "(no input)" : text
    }

    /// The full input starts open when nothing is shown more prominently (neither a command, a file nor a diff).
    public var fullInputStartsExpanded: Bool { prominent == nil && diffSummaries.isEmpty }

    // MARK: What a file edit will change

    /// Whether the approval comes with diffs (a file edit).
    public var hasDiffs: Bool { !diffSummaries.isEmpty }

    /// The heading above the diffs.
    public var diffTitle: String { "What it will change" }

    /// The diffs as the diff view draws them, against the file as it is now (parsed here: read it where it is shown).
    public var diffFiles: [DiffFile] { DiffFile.files(approval.diffs) }

    /// For an approval already answered: what happened (`This call was denied by k_1 — “not there”.`).
    public var stateLine: String? {
        guard approval.state != .pending else { return nil }
        let decision = ChatToolDecision(approval) ?? ChatToolDecision(decision: "cancelled", decidedBy: nil, message: nil)
        if decision.byRule { return "Nobody was asked: this call was " + (approval.message ?? "allowed by a session rule") + "." }
        var line = "This call was " + ChatToolDecision.words(decision.decision)
        if let by = approval.decidedBy { line += " by " + by }
        if let message = approval.message, !message.isEmpty { line += ": “" + message + "”" }
        return line + "."
    }

    /// Told to a viewer looking at a pending approval.
    public var viewerNote: String? { !canDecide && approval.state == .pending ? "An operator has to answer this. Your key can only read." : nil }

    // MARK: Buttons

    public var allowLabel: String { "Allow" }
    public var denyLabel: String { "Deny" }
    public var denyMessageLabel: String { "Message to the agent if you deny (optional)" }
    public var denyMessagePlaceholder: String { "e.g. Not in this folder — use the tests directory instead" }

    /// The rule "allow for this session" grants, as a person reads it (`Bash(touch a.txt)`).
    public var sessionRule: String? {
        approval.sessionRule.flatMap { $0.display.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0.display }
    }

    /// The session button's words: `Allow ` + the rule as code + ` for this session` when the rule is short, else the
    /// scope in words (`Allow this exact command for this session`) with the rule shown whole in ``sessionRuleAbove``.
    public var sessionButton: (before: String, rule: String?, after: String) {
        guard let rule = sessionRule else { return ("Allow for this session", nil, "") }
        if rule.count <= Self.ruleInButtonLimit { return ("Allow ", rule, " for this session") }
        return ("Allow " + scope + " for this session", nil, "")
    }

    /// The session button as one string, for VoiceOver.
    public var sessionButtonLabel: String {
        let parts = sessionButton
        return parts.before + (parts.rule ?? "") + parts.after
    }

    /// A long rule, shown whole above the buttons (`For this session: …`).
    public var sessionRuleAbove: String? {
        guard let rule = sessionRule, rule.count > Self.ruleInButtonLimit else { return nil }
        return rule
    }

    /// `For this session: Bash(…)`, above the buttons when the rule is too long for one.
    public var sessionRuleAboveText: String? { sessionRuleAbove.map { "For this session: " + $0 } }

    /// What allowing for the session does, under the button.
    public var sessionHint: String {
        guard sessionRule != nil else {
            return "This call, and the same call again in this conversation, until it is revoked (Permissions, in the conversation)."
        }
        return "Until it is revoked (Permissions, in the conversation), " + scope
            + " runs again without asking; nothing else changes: not the permission mode, not the folders Claude may use."
    }

    /// What a session rule covers, in words: the same command, the same file, or this exact call.
    public var scope: String {
        let field = approval.sessionRule?.field
        let tool = approval.toolName
        if field == "command" { return "this exact command" }
        if let field, field.hasSuffix("_path") { return tool + " on this same file" }
        if field == "paths" { return tool + " on this same set of files" }
        if field == "url" { return tool + " of this same URL" }
        if field == "query" { return tool + " with this same query" }
        return "this exact " + tool + " call"
    }

    /// Why a deny message cannot be sent, nil when it can (it may be empty).
    public static func denyMessageProblem(_ message: String) -> String? {
        ChatFormat.byteCount(message.trimmingCharacters(in: .whitespacesAndNewlines)) > maxMessageBytes
            ? "The message is too long (at most 4096 bytes)." : nil
    }

    /// The message to send with a deny: trimmed, nil when empty.
    public static func denyMessage(_ message: String) -> String? {
        let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// `Bash allowed for the session.`: said after this screen decided.
    public static func decidedNotice(toolName: String, decision: ApprovalDecision) -> String {
        toolName + " " + ChatToolDecision.words(decision.rawValue) + "."
    }

    /// `Bash was denied by k_1 elsewhere.`: said when someone else answered while the sheet was open.
    public static func resolvedElsewhereNotice(toolName: String, decision: String, by: String?) -> String {
        let who = by.flatMap { $0 == "system" || $0.isEmpty ? nil : " by " + $0 } ?? ""
        return toolName + " was " + ChatToolDecision.words(decision) + who + " elsewhere."
    }
}

/// What came of answering an approval.
public enum ApprovalOutcome: Hashable, Sendable {
    /// Answered; the approval as it is now.
    case decided(Approval)
    /// Someone (or the end of its turn) answered it first; the server's words.
    case alreadyAnswered(String)
    /// The deny message is not acceptable; nothing was sent.
    case invalid(String)
    /// The request failed; the sheet stays open so it can be tried again.
    case failed(String)

    /// Whether the sheet closes.
    public var closesSheet: Bool {
        switch self {
        case .decided, .alreadyAnswered: true
        case .invalid, .failed: false
        }
    }

    /// What to tell the person.
    public var message: String? {
        switch self {
        case .decided: nil
        case .alreadyAnswered(let why): "Already answered: " + why
        case .invalid(let why), .failed(let why): why
        }
    }

    /// Sends a decision with `client`, checking the message first, and classifies the answer: a `409` or `404` means it
    /// was answered already (or its turn ended), anything else failed.
    public static func decide(
        _ approvalID: String, _ decision: ApprovalDecision, message: String?, client: RalphClient
    ) async -> ApprovalOutcome {
        let text = decision == .deny ? message.flatMap(ApprovalSheet.denyMessage) : nil
        if decision == .deny, let problem = ApprovalSheet.denyMessageProblem(message ?? "") { return .invalid(problem) }
        do {
            return .decided(try await client.decide(approvalID, decision, message: text))
        } catch {
            switch error {
            case .conflict(let why), .notRunning(let why): return .alreadyAnswered(why)
            case .notFound(_, let detail): return .alreadyAnswered(detail)
            default: return .failed(error.description)
            }
        }
    }
}
