import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// The create-run wizard (admin only): where, which config, which prompt, options, review — then `POST /api/sessions`.
///
/// Every step is checked before the next one opens; the review shows the request as it will be sent; errors the server
/// answers with go back to the step and field they concern (`config_not_found:` to the config, `prompt_not_found:` to
/// the prompt file, a refused `working_dir` to the directory).
///
/// ```swift
/// let wizard = NewRunModel(client: client, capabilities: app.capabilities, prefill: RunPrefill(configPath: "presets/feature.yml"))
/// await wizard.loadLists()
/// wizard.promptText = "Add a --json flag"
/// while wizard.step != .review { guard await wizard.next() else { break } }
/// if let started = await wizard.submit() { open(started.id) }
/// ```
@MainActor
@Observable
public final class NewRunModel {
    public let client: RalphClient
    public var capabilities: Capabilities

    /// The backends `ralph run -b` knows.
    public static let backends = ["claude", "kiro", "gemini", "codex", "amp", "copilot", "opencode"]
    /// The server's limits.
    public static let maxIterationsLimit = 100_000
    /// The server's limit on a prompt written as text (its `TextLimit.steering`: 64 KiB of UTF-8), so the wizard
    /// refuses what the server would refuse.
    public static let maxPromptBytes = 64 * 1024

    public internal(set) var step: NewRunStep = .place

    // Fields.
    /// Relative to the first workspace root (empty: the root itself).
    public var workingDir = ""
    public var configPath: String?
    public var promptSource: PromptSource = .text
    public var promptPath: String?
    public var promptText = ""
    /// Typed text; empty keeps the config's `max_iterations`.
    public var maxIterations = ""
    /// nil keeps the config's backend.
    public var backend: String?

    // Lists of the directory.
    public internal(set) var configs: [ConfigChoice] = []
    public internal(set) var prompts: [PromptItem] = []
    public internal(set) var isLoadingLists = false
    /// The directory the lists were read from.
    public internal(set) var listedDirectory: String?
    public internal(set) var listErrors: [NewRunField: String] = [:]

    // Previews.
    public internal(set) var configPreview: FilePreview?
    public internal(set) var promptPreview: FilePreview?
    public internal(set) var previewError: [NewRunField: String] = [:]

    // Checking and sending.
    /// Steps whose problems are shown (after a try to go on from them).
    public internal(set) var checkedSteps: Set<NewRunStep> = []
    /// Problems the server found, by field.
    public internal(set) var serverErrors: [NewRunField: String] = [:]
    /// The server's refusal that belongs to no field (`Not allowed: …`, `ralph did not start: …`).
    public internal(set) var banner: String?
    public internal(set) var isSubmitting = false
    /// The run once started: the screen opens it.
    public internal(set) var started: StartSessionResponse?

    public init(client: RalphClient, capabilities: Capabilities, prefill: RunPrefill? = nil) {
        self.client = client
        self.capabilities = capabilities
        if let path = prefill?.configPath { configPath = path }
        if let path = prefill?.promptPath {
            promptSource = .file
            promptPath = path
        }
    }

    // MARK: - Permission

    /// Only admins start runs.
    public var isAllowed: Bool { capabilities.canStartRuns }

    /// What a person without the right sees instead of the wizard.
    public var deniedText: String {
        let role = capabilities.role.rawValue
        return "Starting a ralph run on the server’s machine needs an admin key; yours is \(role == "operator" ? "an" : "a") \(role) key. "
            + "Create one on the server with: ralph-mobile-server keys create --role admin"
    }

    // MARK: - Lists and previews

    /// The working directory as sent (trimmed), nil for the root.
    public var trimmedWorkingDir: String? {
        let dir = workingDir.trimmingCharacters(in: .whitespacesAndNewlines)
        return dir.isEmpty ? nil : dir
    }

    /// Reads the configs, presets and prompts of the working directory. A selection the new lists lack is dropped; the
    /// library's hand-over and `ralph.yml` are picked when nothing is chosen.
    public func loadLists() async {
        isLoadingLists = true
        defer { isLoadingLists = false }
        let dir = trimmedWorkingDir
        let client = client
        async let configsResult = Self.result { () async throws(RalphClientError) in try await client.configs(workspace: dir) }
        async let presetsResult = Self.result { () async throws(RalphClientError) in try await client.presets(workspace: dir) }
        async let promptsResult = Self.result { () async throws(RalphClientError) in try await client.prompts(workspace: dir) }
        let (c, p, q) = await (configsResult, presetsResult, promptsResult)
        listErrors = [:]
        if dir != nil, case .failure(let error) = c, case .failure = q {
            // The directory itself is the problem (outside the roots, missing): say so there, keep the lists we had.
            listErrors[.workingDir] = "This directory cannot be used: \(error.description)"
            return
        }
        listedDirectory = dir
        switch (c, p) {
        case (.failure(let error), .failure):
            configs = []
            listErrors[.config] = "Could not load the configs: \(error.description)"
        default:
            configs = ConfigChoice.merge(configs: (try? c.get()) ?? [], presets: (try? p.get()) ?? [])
        }
        switch q {
        case .success(let list): prompts = list
        case .failure(let error):
            prompts = []
            listErrors[.promptFile] = "Could not load the prompts: \(error.description)"
        }
        if let path = configPath, listErrors[.config] == nil, !configs.contains(where: { $0.path == path }) { configPath = nil }
        if configPath == nil {
            configPath = configs.first { $0.group == .workspace && ($0.path == "ralph.yml" || $0.path == "ralph.yaml") }?.path
        }
        if let path = promptPath, listErrors[.promptFile] == nil, !prompts.contains(where: { $0.path == path }) { promptPath = nil }
        await loadPreviews()
    }

    static func result<T>(_ body: () async throws(RalphClientError) -> T) async -> Result<T, RalphClientError> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    /// Reads the chosen config and prompt file for their previews.
    public func loadPreviews() async {
        previewError = [:]
        configPreview = nil
        promptPreview = nil
        let dir = trimmedWorkingDir
        if let path = configPath {
            do {
                let file = try await client.config(path, workspace: dir)
                if configPath == path { configPreview = FilePreview(path: file.path, content: file.content, contentType: file.contentType) }
            } catch {
                previewError[.config] = "No preview: \(error.description)"
            }
        }
        if promptSource == .file, let path = promptPath {
            do {
                let file = try await client.prompt(path, workspace: dir)
                if promptPath == path { promptPreview = FilePreview(path: file.path, content: file.content, contentType: file.contentType) }
            } catch {
                previewError[.promptFile] = "No preview: \(error.description)"
            }
        }
    }

    // MARK: - Checking

    /// What is wrong with each field now.
    public var problems: [NewRunField: String] {
        var problems: [NewRunField: String] = [:]
        if let dir = trimmedWorkingDir, dir.contains("\0") { problems[.workingDir] = "This path is not valid." }
        if configPath?.isEmpty ?? true { problems[.config] = "Choose a config." }
        switch promptSource {
        case .file:
            if promptPath?.isEmpty ?? true { problems[.promptFile] = "Choose a prompt file, or switch to Write text." }
        case .text:
            let text = promptText.trimmingCharacters(in: .whitespacesAndNewlines)
            if text.isEmpty {
                problems[.promptText] = "Write what ralph should do."
            } else if text.utf8.count > Self.maxPromptBytes {
                problems[.promptText] = "The prompt is longer than \(Self.maxPromptBytes / 1024) KiB; use a prompt file."
            }
        }
        let max = maxIterations.trimmingCharacters(in: .whitespaces)
        if !max.isEmpty {
            if Int(max).map({ (1...Self.maxIterationsLimit).contains($0) }) != true {
                problems[.maxIterations] = "A whole number from 1 to \(Formatting.number(Self.maxIterationsLimit))."
            }
        }
        if let backend, !Self.backends.contains(backend) { problems[.backend] = "Not a backend ralph knows." }
        return problems
    }

    /// The problem to show under a field: the server's, or the field's own once its step was checked.
    public func problem(_ field: NewRunField) -> String? {
        if let error = serverErrors[field] { return error }
        if let error = listErrors[field] { return error }
        return checkedSteps.contains(field.step) ? problems[field] : nil
    }

    /// Whether a step's fields are all right.
    public func isValid(_ step: NewRunStep) -> Bool { !problems.keys.contains { $0.step == step } }

    /// The request as it will be sent, or nil while a field is wrong.
    public var request: StartSessionRequest? {
        guard problems.isEmpty, let configPath else { return nil }
        let max = Int(maxIterations.trimmingCharacters(in: .whitespaces))
        return StartSessionRequest(
            configPath: configPath, promptPath: promptSource == .file ? promptPath : nil,
            prompt: promptSource == .text ? promptText.trimmingCharacters(in: .whitespacesAndNewlines) : nil, workingDir: trimmedWorkingDir,
            backend: backend, maxIterations: max)
    }

    /// The review step's rows.
    public var reviewRows: [SectionStat] {
        [
            SectionStat("Directory", trimmedWorkingDir ?? "workspace root"),
            SectionStat("Config", configPath ?? Formatting.missing),
            promptSource == .file
                ? SectionStat("Prompt file", promptPath ?? Formatting.missing)
                : SectionStat("Prompt", Formatting.oneLine(promptText, max: 200)),
            SectionStat("Max iterations", trimmedMax.isEmpty ? "from the config" : trimmedMax),
            SectionStat("Backend", backend ?? "from the config"),
        ]
    }

    private var trimmedMax: String { maxIterations.trimmingCharacters(in: .whitespaces) }

    /// The command the server will run, for the review.
    public var commandPreview: String {
        var parts = ["ralph run -c", configPath ?? "<config>"]
        parts.append(promptSource == .file ? "-P \(promptPath ?? "<prompt file>")" : "-p \"…\"")
        parts.append("--autonomous --no-tui")
        if !trimmedMax.isEmpty { parts.append("--max-iterations \(trimmedMax)") }
        if let backend { parts.append("-b \(backend)") }
        return parts.joined(separator: " ")
    }

    // MARK: - Moving between steps

    /// Checks the current step and opens the next one; false (with the problems shown) when something is wrong.
    /// Leaving the first step reads the lists of the directory chosen there.
    @discardableResult
    public func next() async -> Bool {
        checkedSteps.insert(step)
        guard isValid(step), let following = NewRunStep(rawValue: step.rawValue + 1) else { return false }
        if step == .place, listedDirectory != trimmedWorkingDir || configs.isEmpty && prompts.isEmpty {
            await loadLists()
            if listErrors[.workingDir] != nil { return false }
        }
        step = following
        return true
    }

    /// Goes back one step.
    public func back() {
        guard let previous = NewRunStep(rawValue: step.rawValue - 1) else { return }
        step = previous
    }

    /// Whether Back is offered.
    public var canGoBack: Bool { step != .place && !isSubmitting }

    /// Marks a field edited: the server's error for it goes.
    public func edited(_ field: NewRunField) {
        serverErrors[field] = nil
        if field == .workingDir { listErrors[.workingDir] = nil }
        banner = nil
    }

    /// The title of the button that goes on: `Next`, `Start run`, or `Starting ralph…` while it is sent.
    public var primaryButtonTitle: String { isSubmitting ? "Starting ralph…" : step.nextLabel }

    /// Whether the button that goes on can be used now.
    public var canAdvance: Bool { !isSubmitting && !isLoadingLists && started == nil }

    /// What the button that goes on does: the next step, or on the review, start the run.
    public func advance() async {
        if step == .review {
            await submit()
        } else {
            await next()
        }
    }

    // MARK: - Starting

    /// Sends the request. On success ``started`` holds the run; on a refusal the wizard goes back to the step concerned.
    @discardableResult
    public func submit() async -> StartSessionResponse? {
        guard isAllowed, !isSubmitting else { return nil }
        checkedSteps = Set(NewRunStep.allCases)
        banner = nil
        serverErrors = [:]
        guard let request else {
            if let first = NewRunStep.allCases.first(where: { !isValid($0) }) { step = first }
            return nil
        }
        isSubmitting = true
        defer { isSubmitting = false }
        do {
            let response = try await client.start(request)
            started = response
            return response
        } catch {
            show(error)
            return nil
        }
    }

    /// The notice once started.
    public var startedText: String? {
        guard let started else { return nil }
        return started.pending ? "ralph is starting; the run appears in a moment." : "Run started."
    }

    func show(_ error: RalphClientError) {
        switch error {
        case .configNotFound: serverErrors[.config] = error.description
        case .promptNotFound: serverErrors[.promptFile] = error.description
        case .invalidPath(let why) where why.contains("working_dir") || why.contains("workspace"): serverErrors[.workingDir] = error.description
        case .invalidPath(let why) where why.contains("config"): serverErrors[.config] = error.description
        case .invalidPath(let why) where why.contains("prompt"): serverErrors[.promptFile] = error.description
        case .invalidBody(let why) where why.contains("max_iterations"): serverErrors[.maxIterations] = error.description
        case .invalidBody(let why) where why.contains("backend"): serverErrors[.backend] = error.description
        case .invalidBody(let why) where why.contains("prompt"): serverErrors[promptSource == .file ? .promptFile : .promptText] = error.description
        case .forbidden(let why): banner = "Not allowed: \(why)"
        case .failedToSpawn(let why): banner = "ralph did not start: \(why)"
        default: banner = "The run was not started: \(error.description)"
        }
        if let field = serverErrors.keys.min(by: { $0.step.rawValue < $1.step.rawValue }) { step = field.step }
    }
}

/// The wizard's steps, in order.
public enum NewRunStep: Int, CaseIterable, Sendable, Identifiable {
    case place, config, prompt, options, review

    public var id: Int { rawValue }
    /// `Step 2 of 5`.
    public var progressText: String { "Step \(rawValue + 1) of \(Self.allCases.count)" }

    public var title: String {
        switch self {
        case .place: "Where"
        case .config: "Config"
        case .prompt: "Prompt"
        case .options: "Options"
        case .review: "Review"
        }
    }

    /// What the step asks.
    public var hint: String {
        switch self {
        case .place: "The directory ralph runs in, relative to the workspace root; it must stay inside it. Leave it empty for the root."
        case .config: "ralph.yml of the directory, or a preset from presets/."
        case .prompt: "A Markdown file under prompts/, or the text to pass with -p."
        case .options: "Both are optional: the config’s values apply when left empty."
        case .review: "The server runs ralph in that directory; the run shows up in Sessions."
        }
    }

    /// The label of the button that leaves the step.
    public var nextLabel: String { self == .review ? "Start run" : "Next" }
}

/// Where the prompt comes from.
public enum PromptSource: String, CaseIterable, Sendable, Identifiable {
    case file, text
    public var id: String { rawValue }
    public var label: String { self == .file ? "Prompt file" : "Write text" }
}

/// A field of the wizard.
public enum NewRunField: String, Sendable, Hashable, CaseIterable {
    case workingDir, config, promptFile, promptText, maxIterations, backend

    /// The step the field is on.
    public var step: NewRunStep {
        switch self {
        case .workingDir: .place
        case .config: .config
        case .promptFile, .promptText: .prompt
        case .maxIterations, .backend: .options
        }
    }
}
