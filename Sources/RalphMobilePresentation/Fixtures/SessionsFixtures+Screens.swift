import Foundation
import RalphAPI
import RalphMobileKit

/// The screens' values built from the fixtures by the real presentation code, for `#Preview` blocks.
extension SessionsFixtures {
    static let utc = TimeZone(identifier: "UTC") ?? .current

    // MARK: - Sessions list

    /// The list's rows (the third run hidden, as "show hidden" draws it).
    public static var rows: [SessionRow] {
        sessions.map { SessionRow($0, isHidden: $0.id == sessions[2].id, now: now, timeZone: utc) }
    }

    /// The filter chips for ``sessions`` (nothing hidden).
    public static var filterOptions: [SessionsFilterOption] { SessionsFilterOption.options(for: sessions) }

    /// The list's summary and "show hidden" label with the third run hidden.
    public static var listSummary: String { SessionsListScreenModel.summary(sessions: sessions, hiddenIDs: [sessions[2].id]) }
    public static var listHiddenToggleLabel: String? { SessionsListScreenModel.hiddenToggleLabel(hiddenCount: 1, showHidden: true) }
    /// The Live filter on a server whose runs are all finished.
    public static var finishedOnly: [Session] { Array(sessions.suffix(2)) }
    public static var finishedOnlySummary: String { SessionsListScreenModel.summary(sessions: finishedOnly, hiddenIDs: []) }
    public static var finishedOnlyFilterOptions: [SessionsFilterOption] { SessionsFilterOption.options(for: finishedOnly) }
    public static var liveFilteredOut: SessionsEmptyState { .filteredOut(.live) }

    public static var listConnection: ConnectionLine { .list(state: .connected, isPolling: false, pollInterval: .seconds(5)) }
    public static var listReconnecting: ConnectionLine { .list(state: .reconnecting(attempt: 3), isPolling: true, pollInterval: .seconds(5)) }

    // MARK: - Detail sections

    public static var header: StatusHeader {
        StatusHeader(session: liveSession, stopReason: nil, elapsedSeconds: Double(liveSession.elapsedSecs), now: now, timeZone: utc)
    }

    /// The header of the finished, failed run.
    public static var endedHeader: StatusHeader {
        StatusHeader(
            session: sessions[3], stopReason: StopReason(reason: "max_iterations", message: "Reached the iteration limit.", at: sessions[3].lastEventAt),
            elapsedSeconds: Double(sessions[3].elapsedSecs), now: now, timeZone: utc)
    }

    public static var question: PendingQuestionCard? {
        detail.pendingQuestion.map { PendingQuestionCard(question: $0, capabilities: Capabilities(role: .operator), now: now) }
    }

    public static var tokens: TokenMetricsSection {
        TokenMetricsSection(tokens: detail.tokens, sparklineValues: detail.tokens?.samples.map { $0.inputTokens + $0.outputTokens } ?? [])
    }

    public static var hatFlow: HatFlowSection { HatFlowSection(detail: detail, expanded: false, timeZone: utc) }
    public static var backpressure: BackpressureSection { BackpressureSection(detail.backpressure, now: now) }
    public static var iterationStats: IterationStatsSection { IterationStatsSection(stats: detail.iterationStats, session: liveSession, iterations: iterations) }

    public static func modeControl(role: Role = .admin) -> ModeControlSection {
        ModeControlSection(session: liveSession, capabilities: Capabilities(role: role))
    }

    public static func actions(role: Role = .admin) -> ActionsSection {
        ActionsSection(session: liveSession, hasPendingQuestion: true, capabilities: Capabilities(role: role))
    }

    public static var recentEvents: RecentEventsSection { RecentEventsSection(detail: detail, timeZone: utc) }

    public static var eventStream: EventStreamSection {
        EventStreamSection(
            events: streamEvents, eventCount: streamEvents.count, connection: .connected, reconnectAttempts: 1, end: nil, reset: nil, isActive: true,
            timeZone: utc)
    }

    public static var hatsReference: HatsReferenceSection {
        HatsReferenceSection(hats: hats, loadError: nil, currentHat: liveSession.hat, usage: detail.hatUsage)
    }

    /// What emitting an event says.
    public static var emitOutcome: ControlOutcome { ControlOutcome(text: "Emitted build.task as event #143", isError: false) }

    public static var stopConfirmation: StopConfirmation { StopConfirmation(session: liveSession) }

    /// An emit draft with a payload that does not parse, as the sheet shows it after "Send".
    public static var invalidEmitDraft: EmitDraft {
        var draft = EmitDraft(topic: "build task", payload: #"{"task": "#)
        draft.showsProblems = true
        return draft
    }

    // MARK: - New run

    /// A client for previews' models (it connects to nothing until asked).
    public static let previewClient: RalphClient? = try? RalphClient(baseURL: "http://127.0.0.1:8080")

    /// A wizard at `step` with the fixtures' lists, the feature preset and a prompt file chosen (nil only if the
    /// preview client could not be made).
    @MainActor
    public static func newRunModel(step: NewRunStep) -> NewRunModel? {
        guard let client = previewClient else { return nil }
        let model = NewRunModel(client: client, capabilities: Capabilities(role: .admin), prefill: RunPrefill(configPath: configFile.path))
        model.configs = ConfigChoice.merge(configs: configs, presets: presets)
        model.prompts = prompts
        model.listedDirectory = nil
        model.promptSource = .file
        model.promptPath = promptFile.path
        model.maxIterations = "20"
        model.configPreview = FilePreview(path: configFile.path, content: configFile.content, contentType: configFile.contentType)
        model.promptPreview = FilePreview(path: promptFile.path, content: promptFile.content, contentType: promptFile.contentType)
        model.step = step
        return model
    }

    // MARK: - Library

    /// The library showing `kind` from the fixtures (nil only if the preview client could not be made).
    @MainActor
    public static func libraryModel(kind: LibraryKind, opened: LibraryContent? = nil) -> LibraryModel? {
        guard let client = previewClient else { return nil }
        let model = LibraryModel(client: client)
        model.kind = kind
        model.items =
            switch kind {
            case .configs: configs.map(LibraryItem.config)
            case .prompts: prompts.map(LibraryItem.prompt)
            case .presets: presets.map(LibraryItem.preset)
            case .hats: hats.map(LibraryItem.hat)
            case .skills: skills.map(LibraryItem.skill)
            }
        model.hasLoaded = true
        model.content = opened
        return model
    }

    public static var libraryItems: [LibraryItem] { configs.map(LibraryItem.config) }
    public static var libraryHats: [LibraryItem] { hats.map(LibraryItem.hat) }
    public static var configContent: LibraryContent { .file(configFile, kind: .configs) }
    public static var hatContent: LibraryContent { .hat(hats[1]) }
}
