import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// The auto-reply settings screen over the SDK's ``RalphMobileKit/AutoReplyModel`` (which keeps the saved settings, the
/// draft and its problems, presets, import/export, the controls and the live progress): number fields as text with
/// their own problems, each problem on its field, the five modes with what they need, presets with their words, the
/// export's file name, and the controls the loop's state allows.
@MainActor
@Observable
public final class AutoReplySettingsModel: LiveFeed {
    /// A field of the form that can have a problem.
    public enum Field: String, Hashable, Sendable, CaseIterable {
        case mode
        case maxIterations = "max_iterations"
        case maxMinutes = "max_minutes"
        case maxMessages = "max_messages"
        case minConfidence = "min_confidence"
        case nextPrompt = "next_prompt"
        case judge

        public var label: String {
            switch self {
            case .mode: "Mode"
            case .maxIterations: "Max cycles (1–500)"
            case .maxMinutes: "Max minutes (1–480)"
            case .maxMessages: "Max messages (1–100)"
            case .minConfidence: "Min confidence (0–1)"
            case .nextPrompt: "Next prompt"
            case .judge: "Judge"
            }
        }

        public var hint: String? {
            switch self {
            case .maxMinutes: "Time based and hybrid. Empty: no time limit."
            case .maxMessages: "Message based and hybrid. Empty: no message limit."
            case .minConfidence: "Smart stop stops at or above it."
            case .nextPrompt: "What is sent after each reply. Empty: the default."
            default: nil
            }
        }
    }

    public let model: AutoReplyModel
    public let capabilities: Capabilities
    public var conversationID: String { model.conversationID }

    /// Also make the saved settings the default of new conversations in the same directory.
    public var saveAsDefault = false
    /// Said once after an action (`Saved`, `Preset “quick” loaded: not saved yet`).
    public private(set) var notice: String?
    public private(set) var isWorking = false

    private var texts: [Field: String] = [:]
    private var parseProblems: [Field: String] = [:]

    public init(client: RalphClient, conversationID: String, capabilities: Capabilities) {
        model = AutoReplyModel(client: client, conversationID: conversationID)
        self.capabilities = capabilities
        syncTexts()
    }

    /// Over an existing SDK model (the chat screen's).
    public init(model: AutoReplyModel, capabilities: Capabilities) {
        self.model = model
        self.capabilities = capabilities
        syncTexts()
    }

    public var canEdit: Bool { capabilities.canControlAutoReply }

    // MARK: - Mode

    public var modes: [AutoReplyMode] { AutoReplyMode.allCases }

    public var mode: AutoReplyMode {
        get { model.draft.mode }
        set { model.draft.mode = newValue }
    }

    public func title(of mode: AutoReplyMode) -> String { AutoReplyWords.title(mode) }
    public var modeExplanation: String { AutoReplyWords.explanation(model.draft.mode) }

    /// A limit the chosen mode cannot do without (time based needs minutes …; hybrid needs one of the two).
    public func isRequired(_ field: Field) -> Bool {
        switch (model.draft.mode, field) {
        case (_, .maxIterations): true
        case (.timeBased, .maxMinutes), (.messageBased, .maxMessages): true
        case (.hybrid, .maxMinutes), (.hybrid, .maxMessages): model.draft.maxMinutes == nil && model.draft.maxMessages == nil
        default: false
        }
    }

    /// Whether a field matters in the chosen mode (the others are kept but do nothing).
    public func applies(_ field: Field) -> Bool {
        switch field {
        case .maxMinutes: [.timeBased, .hybrid].contains(model.draft.mode)
        case .maxMessages: [.messageBased, .hybrid].contains(model.draft.mode)
        case .minConfidence: model.draft.mode == .smartStop || model.draft.judge != nil
        default: true
        }
    }

    // MARK: - Number fields, as typed

    public var maxIterationsText: String {
        get { texts[.maxIterations] ?? "" }
        set { setNumber(.maxIterations, newValue, optional: false, range: AutoReplySettings.iterationRange) { self.model.draft.maxIterations = $0 ?? 0 } }
    }

    public var maxMinutesText: String {
        get { texts[.maxMinutes] ?? "" }
        set { setNumber(.maxMinutes, newValue, optional: true, range: AutoReplySettings.minuteRange) { self.model.draft.maxMinutes = $0 } }
    }

    public var maxMessagesText: String {
        get { texts[.maxMessages] ?? "" }
        set { setNumber(.maxMessages, newValue, optional: true, range: AutoReplySettings.messageRange) { self.model.draft.maxMessages = $0 } }
    }

    public var minConfidenceText: String {
        get { texts[.minConfidence] ?? "" }
        set {
            texts[.minConfidence] = newValue
            let trimmed = newValue.trimmingCharacters(in: .whitespaces)
            guard let value = Double(trimmed.replacingOccurrences(of: ",", with: ".")), value.isFinite else {
                parseProblems[.minConfidence] = "A number from 0 to 1."
                return
            }
            parseProblems[.minConfidence] = nil
            model.draft.minConfidence = value
        }
    }

    /// The next prompt; empty means the default one.
    public var nextPromptText: String {
        get { model.draft.nextPrompt.text ?? "" }
        set { model.draft.nextPrompt.text = newValue.isEmpty ? nil : newValue }
    }

    public var nextPromptPlaceholder: String { "Default: " + NextPrompt.defaultText }

    private func setNumber(_ field: Field, _ text: String, optional: Bool, range: ClosedRange<Int>, apply: (Int?) -> Void) {
        texts[field] = text
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty && optional {
            parseProblems[field] = nil
            apply(nil)
            return
        }
        guard let value = Int(trimmed) else {
            parseProblems[field] = "A whole number from \(range.lowerBound) to \(range.upperBound)" + (optional ? ", or empty." : ".")
            return
        }
        parseProblems[field] = nil
        apply(value)
    }

    /// The number fields from the draft (after loading, a preset, an import or a revert).
    private func syncTexts() {
        let d = model.draft
        texts = [
            .maxIterations: String(d.maxIterations), .maxMinutes: d.maxMinutes.map(String.init) ?? "", .maxMessages: d.maxMessages.map(String.init) ?? "",
            .minConfidence: Self.decimal(d.minConfidence),
        ]
        parseProblems = [:]
    }

    static func decimal(_ value: Double) -> String {
        value == value.rounded() ? String(format: "%.1f", value) : String(value)
    }

    // MARK: - Switches (the draft's booleans)

    public enum Switch: String, Hashable, Sendable, CaseIterable, Identifiable {
        case stopOnError
        case requireConfirmation
        case allowOverride
        case showstopperDetection

        public var id: String { rawValue }

        public var label: String {
            switch self {
            case .stopOnError: "Stop when a turn fails"
            case .requireConfirmation: "Ask me before each next prompt"
            case .allowOverride: "Keep going when I write a message myself"
            case .showstopperDetection: "Pause when Claude needs a person"
            }
        }
    }

    public func isOn(_ option: Switch) -> Bool {
        switch option {
        case .stopOnError: model.draft.stopOnError
        case .requireConfirmation: model.draft.requireConfirmation
        case .allowOverride: model.draft.allowOverride
        case .showstopperDetection: model.draft.showstopperDetection
        }
    }

    public func set(_ option: Switch, _ on: Bool) {
        switch option {
        case .stopOnError: model.draft.stopOnError = on
        case .requireConfirmation: model.draft.requireConfirmation = on
        case .allowOverride: model.draft.allowOverride = on
        case .showstopperDetection: model.draft.showstopperDetection = on
        }
    }

    public var saveAsDefaultLabel: String { "Also use these settings for new conversations in this folder" }

    /// The judge, when one is set: `llama at http://127.0.0.1:11434/v1` (edited by import; shown read-only).
    public var judgeText: String? { model.draft.judge.map { "\($0.model) at \($0.baseUrl)" } }

    // MARK: - Problems

    /// Every problem of the form, on its field: what could not be read as typed, else what the SDK finds in the draft.
    public var problems: [Field: String] {
        var result: [Field: String] = [:]
        for problem in model.problems {
            let field = Self.field(of: problem)
            result[field] = result[field].map { $0 + " " + problem } ?? problem
        }
        return result.merging(parseProblems) { _, typed in typed }
    }

    public func problem(_ field: Field) -> String? { problems[field] }

    /// The field a problem of the SDK (or the server, `invalid request: a; b`) is about.
    static func field(of problem: String) -> Field {
        for field in [Field.maxIterations, .maxMinutes, .maxMessages, .minConfidence, .nextPrompt, .judge] where problem.contains(field.rawValue) {
            return field
        }
        if problem.contains("time_based") || problem.contains("hybrid") { return .maxMinutes }
        if problem.contains("message_based") { return .maxMessages }
        return .mode
    }

    public var hasProblems: Bool { !problems.isEmpty }
    public var isDirty: Bool { model.isDirty }
    public var canSave: Bool { canEdit && model.canSave && parseProblems.isEmpty && !isWorking }

    /// `Unsaved changes` while the draft differs from what is saved.
    public var dirtyText: String? { model.isDirty ? "Unsaved changes" : nil }

    // MARK: - Presets, import, export

    public struct PresetOption: Hashable, Sendable, Identifiable {
        public let name: String
        public let label: String
        public var id: String { name }
    }

    /// The server's presets, by name.
    public var presets: [PresetOption] { model.presets.keys.sorted().map { PresetOption(name: $0, label: AutoReplyWords.preset($0)) } }

    /// Fills the form with a preset (its prompt and judge are kept); saving or starting uses it.
    @discardableResult
    public func applyPreset(_ name: String) -> Bool {
        guard model.applyPreset(name) else { return false }
        syncTexts()
        notice = "Preset “\(name)” loaded: not saved yet"
        return true
    }

    /// The form as JSON, to share or save as a file.
    public var exportText: String { model.exportJSON() }
    /// `auto-reply-1a2b3c4d.json`.
    public var exportFileName: String { "auto-reply-" + String(conversationID.prefix(8)) + ".json" }

    /// Reads settings JSON into the form; false with ``lastError`` saying why (the form is then unchanged).
    @discardableResult
    public func importJSON(_ text: String) -> Bool {
        guard model.importJSON(text) else { return false }
        syncTexts()
        notice = "Imported: not saved yet"
        return true
    }

    /// Forgets the edits.
    public func revert() {
        model.revert()
        syncTexts()
    }

    public var lastError: String? { model.lastError }

    // MARK: - Server

    public func load() async {
        await model.load()
        syncTexts()
    }

    /// Loads the settings and follows the loop's progress until ``suspend()``.
    public func start() async {
        await load()
        model.follow()
    }

    public func suspend() { model.stopFollowing() }

    /// Follows the progress again (each connection reads the status, so nothing said meanwhile is missed); the form
    /// keeps its edits.
    public func resume() async {
        guard !model.isFollowing else { return }
        if !model.isLoaded { await load() }
        model.follow()
    }

    /// Saves the form (refused without a request while a field has a problem).
    @discardableResult
    public func save() async -> Bool {
        guard canEdit, parseProblems.isEmpty, !isWorking else { return false }
        isWorking = true
        defer { isWorking = false }
        let asDefault = saveAsDefault
        guard await model.save(asDefault: asDefault) else { return false }
        syncTexts()
        notice = "Saved" + (asDefault ? " (also the default for this folder)" : "")
        return true
    }

    /// The loop's status with Start, pause, resume and stop: those its state allows.
    public var status: AutoReplyStatusBar { AutoReplyStatusBar(model, canControl: canEdit, includesStart: true) }

    public var controls: [AutoReplyControl] { status.controls }

    /// Carries out a control (start sends the form when it has unsaved edits).
    @discardableResult
    public func perform(_ control: AutoReplyControl) async -> Bool {
        guard canEdit, !isWorking else { return false }
        if control == .start, !parseProblems.isEmpty { return false }
        isWorking = true
        defer { isWorking = false }
        let done: Bool
        switch control {
        case .start: done = await model.start()
        case .pause: done = await model.pause()
        case .resume: done = await model.resume()
        case .stop: done = await model.stop()
        }
        if done, control == .start { syncTexts() }
        return done
    }

    public func clearNotice() { notice = nil }
}
