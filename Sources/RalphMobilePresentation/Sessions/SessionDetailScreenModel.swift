import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// The session detail screen: the SDK's live ``SessionMonitor`` (status, detail, event stream with resume), plus what
/// the screen adds — the workspace's hats, the iterations list, the ten sections ready to lay out, the controls with
/// their drafts and confirmation, and the export.
///
/// ```swift
/// let model = SessionDetailScreenModel(client: client, sessionID: id, capabilities: app.capabilities)
/// await model.start()
/// model.header(now: .now).title
/// model.modeControl.showsPause
/// ```
@MainActor
@Observable
public final class SessionDetailScreenModel: LiveFeed {
    /// The SDK model this screen shows.
    public let monitor: SessionMonitor
    /// What the person may do; controls they may not use are not shown.
    public var capabilities: Capabilities
    /// The hats of the run's workspace; nil while they load.
    public private(set) var hats: [HatItem]?
    public private(set) var hatsError: String?
    /// `GET /api/sessions/{id}/iterations`; nil while it loads.
    public private(set) var iterations: [IterationItem]?
    /// Show every hat change, not only the latest.
    public var hatFlowExpanded = false
    /// How often the iterations list is re-read while the run is active.
    public var iterationsRefreshInterval: Duration = .seconds(5)

    // Controls (see SessionDetailScreenModel+Controls.swift).
    public var emitDraft = EmitDraft()
    public var steerDraft = SteerDraft()
    public var answerDraft = AnswerDraft()
    /// Set by ``requestStop()``: the confirmation to show; nil when none is asked.
    public internal(set) var stopConfirmation: StopConfirmation?
    /// The control being carried out (its button shows progress; the others wait).
    public internal(set) var runningAction: ControlAction?
    /// What the last control did.
    public internal(set) var outcome: ControlOutcome?
    /// Files written by ``prepareExport(now:directory:)``, for the share sheet.
    public private(set) var exportedFiles: [URL] = []
    public private(set) var exportError: String?

    @ObservationIgnored private var iterationsTask: Task<Void, Never>?
    @ObservationIgnored private var elapsedBase: (seconds: Int, at: Date)?

    public init(client: RalphClient, sessionID: String, capabilities: Capabilities) {
        monitor = SessionMonitor(client: client, sessionID: sessionID)
        self.capabilities = capabilities
    }

    public var sessionID: String { monitor.sessionID }
    public var client: RalphClient { monitor.client }

    // MARK: - Feed

    /// Loads the run, streams it while it is active, and loads its hats and iterations.
    public func start() async {
        await monitor.connect()
        await loadHats()
        await loadIterations()
        startIterationsRefresh()
    }

    /// Closes the stream (the app went to the background); what is shown stays.
    public func suspend() {
        monitor.disconnect()
        iterationsTask?.cancel()
        iterationsTask = nil
    }

    /// Reopens the stream after the last event shown (nothing missed, nothing twice) and re-reads the rest.
    public func resume() async {
        await monitor.connect()
        await loadIterations()
        startIterationsRefresh()
    }

    /// Pull to refresh: re-reads the status, the detail, the hats and the iterations.
    public func refresh() async {
        await monitor.refreshStatus()
        await loadHats()
        await loadIterations()
    }

    /// The hats of the run's own workspace; a worktree without a config of its own falls back to the server's first
    /// workspace (as the web dashboard does).
    func loadHats() async {
        do {
            var list = try await client.hats(forSession: sessionID)
            if list.isEmpty { list = try await client.hats() }
            hats = list
            hatsError = nil
        } catch {
            if hats == nil { hatsError = error.description }
        }
    }

    func loadIterations() async {
        if let answer = try? await client.iterations(sessionID) {
            iterations = answer.iterations
        } else if iterations == nil {
            iterations = []
        }
    }

    /// Re-reads the iterations every ``iterationsRefreshInterval`` while the run is active and events come in; in a
    /// cluster, re-reads the run too while it is active or unreachable (``followHost()``).
    private func startIterationsRefresh() {
        iterationsTask?.cancel()
        iterationsTask = Task { [weak self] in
            var seen = self?.monitor.eventCount ?? 0
            while !Task.isCancelled {
                guard let interval = self?.iterationsRefreshInterval else { return }
                try? await Task.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                let unreachable = self.monitor.session?.isUnreachable ?? false
                guard self.monitor.isSessionActive || self.monitor.isStreaming || unreachable else { continue }
                if self.monitor.session?.reachable != nil { await self.followHost() }
                if self.monitor.eventCount != seen {
                    seen = self.monitor.eventCount
                    await self.loadIterations()
                }
            }
        }
    }

    /// A run of a cluster: its host going offline or coming back sends nothing on the run's stream, so the run is read
    /// again; once its host is back and it is live, its stream opens again (after the last event shown).
    func followHost() async {
        let wasUnreachable = monitor.session?.isUnreachable ?? false
        await monitor.refreshStatus()
        if wasUnreachable, monitor.session?.isUnreachable == false, monitor.isSessionActive, !monitor.isStreaming { await monitor.connect() }
    }

    // MARK: - The sections

    /// The run as the screen knows it.
    public var session: Session? { monitor.session }

    /// Whether the first load failed (nothing to show but the error).
    public var loadError: String? { monitor.session == nil ? monitor.lastError : nil }

    /// The elapsed time, counted on between refreshes while the run is live.
    public func elapsedSeconds(now: Date) -> Double {
        guard let session = monitor.session else { return 0 }
        if elapsedBase?.seconds != session.elapsedSecs { elapsedBase = (session.elapsedSecs, now) }
        guard session.mode == .live, let base = elapsedBase else { return Double(session.elapsedSecs) }
        return Double(base.seconds) + max(0, now.timeIntervalSince(base.at))
    }

    /// 1. Status header (nil until the run is loaded).
    public func header(now: Date = Date(), timeZone: TimeZone = .current) -> StatusHeader? {
        guard let session = monitor.session else { return nil }
        return StatusHeader(session: session, stopReason: monitor.detail?.stopReason, elapsedSeconds: elapsedSeconds(now: now), now: now, timeZone: timeZone)
    }

    /// The question ralph waits on, while the run is active.
    public func question(now: Date = Date()) -> PendingQuestionCard? {
        guard monitor.isSessionActive, let question = monitor.detail?.pendingQuestion else { return nil }
        return PendingQuestionCard(question: question, capabilities: capabilities, now: now)
    }

    /// Live cost, context window and tool calls from ralph's RPC mode (runs the server started), else nil.
    public var rpcLive: RpcLiveSection? { RpcLiveSection(monitor.detail?.rpc) }

    /// 2. Token metrics and sparkline.
    public var tokens: TokenMetricsSection { TokenMetricsSection(tokens: monitor.tokenTotals, sparklineValues: monitor.tokenSparkline) }

    /// 3. Hat flow.
    public func hatFlow(timeZone: TimeZone = .current) -> HatFlowSection {
        HatFlowSection(detail: monitor.detail, expanded: hatFlowExpanded, timeZone: timeZone)
    }

    /// 4. Backpressure.
    public func backpressure(now: Date = Date()) -> BackpressureSection { BackpressureSection(monitor.backpressure, now: now) }

    /// 5. Iteration stats.
    public var iterationStats: IterationStatsSection {
        IterationStatsSection(stats: monitor.iterationStats, session: monitor.session, iterations: iterations)
    }

    /// 6. Mode and control.
    public var modeControl: ModeControlSection { ModeControlSection(session: monitor.session, capabilities: capabilities) }

    /// 7. Recent events.
    public func recentEvents(timeZone: TimeZone = .current) -> RecentEventsSection { RecentEventsSection(detail: monitor.detail, timeZone: timeZone) }

    /// 7b. Guidance and its acknowledgements, agent waves, the RObot check-in (ralph 2.9–2.10).
    public func signals(timeZone: TimeZone = .current) -> SignalsSection { SignalsSection(detail: monitor.detail, timeZone: timeZone) }

    /// 8. The live event stream.
    public func eventStream(timeZone: TimeZone = .current) -> EventStreamSection {
        EventStreamSection(
            events: monitor.events, eventCount: monitor.eventCount, connection: monitor.connection, reconnectAttempts: monitor.reconnectAttempts,
            end: monitor.end, reset: monitor.reset, isActive: monitor.isSessionActive,
            hostOffline: monitor.session.flatMap { $0.isUnreachable ? $0.host ?? $0.hostId ?? "" : nil }, timeZone: timeZone)
    }

    /// 9. Hats reference.
    public var hatsReference: HatsReferenceSection {
        HatsReferenceSection(hats: hats, loadError: hatsError, currentHat: monitor.session?.hat, usage: monitor.hatUsage)
    }

    /// 10. Actions.
    public var actions: ActionsSection {
        ActionsSection(session: monitor.session, hasPendingQuestion: monitor.detail?.pendingQuestion != nil, capabilities: capabilities)
    }

    /// The screen's title.
    public var title: String {
        guard let task = monitor.session?.taskName, !task.isEmpty else { return "Session \(Formatting.id8(sessionID))" }
        return Formatting.oneLine(task, max: 40)
    }

    // MARK: - Export

    /// The session's data for the share sheet, as it stands now.
    public func export(now: Date = Date(), timeZone: TimeZone = .current) throws -> SessionExport {
        let stem = SessionExport.fileStem(sessionID: monitor.session?.id ?? sessionID, at: now)
        let stream = eventStream(timeZone: timeZone)
        let streamJSON: JSONValue = .object(
            JSONObject([
                ("state", .string(stream.connection.text)), ("reconnects", .int(monitor.reconnectAttempts)),
                ("ended", monitor.end.map { .string($0.reason ?? $0.status.rawValue) } ?? .null),
            ]))
        let json = try SessionExport.json(base: monitor.exportJSON(), iterations: iterations, hats: hats, stream: streamJSON)
        let summary = SessionSummary(
            header: header(now: now, timeZone: timeZone)
                ?? StatusHeader(session: placeholderSession, stopReason: nil, elapsedSeconds: 0, now: now, timeZone: timeZone),
            question: question(now: now), tokens: tokens, hatFlow: hatFlow(timeZone: timeZone), backpressure: backpressure(now: now),
            iterations: iterationStats, mode: .mode(monitor.session?.mode ?? .complete), recentEvents: recentEvents(timeZone: timeZone),
            stream: stream, hats: hatsReference, exportedAt: Timestamp.format(now))
        return SessionExport(
            json: ExportFile(fileName: stem + ".json", mimeType: "application/json", contents: json),
            summary: ExportFile(fileName: stem + ".md", mimeType: "text/markdown", contents: Data(summary.markdown.utf8)))
    }

    /// Writes both exports into `directory` (a folder of their own under the temporary directory by default) and
    /// keeps their URLs in ``exportedFiles`` for the share sheet: the JSON first, then the summary.
    public func prepareExport(now: Date = Date(), directory: URL? = nil) {
        let folder = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("ralph-exports", isDirectory: true)
        do {
            let export = try export(now: now)
            exportedFiles = [try export.json.write(into: folder), try export.summary.write(into: folder)]
            exportError = nil
        } catch {
            exportedFiles = []
            exportError = "Could not export the session: \(error)"
        }
    }

    /// Forgets the prepared export (the share sheet closed).
    public func clearExport() { exportedFiles = [] }

    /// What the summary says about a run that never loaded.
    private var placeholderSession: Session {
        Session(
            id: sessionID, iteration: 0, total: nil, hat: nil, elapsedSecs: 0, mode: .complete, status: SessionStatus(rawValue: "unknown"),
            startedAt: "", lastEventAt: nil, eventCount: 0, taskName: nil, workspace: "", path: "", pid: nil)
    }
}

/// The controls of the detail screen.
public enum ControlAction: String, Sendable, Equatable, CaseIterable {
    case pause, resume, stop, emit, steer, answer

    /// The button's title: `Pause`, or `Pausing…` while `running` is this action.
    public func title(running: ControlAction?) -> String {
        let busy = running == self
        switch self {
        case .pause: return busy ? "Pausing…" : "Pause"
        case .resume: return busy ? "Resuming…" : "Resume"
        case .stop: return busy ? "Stopping…" : "Stop run"
        case .emit: return busy ? "Emitting…" : "Emit event"
        case .steer: return busy ? "Sending…" : "Send guidance"
        case .answer: return busy ? "Sending…" : "Send answer"
        }
    }
}
