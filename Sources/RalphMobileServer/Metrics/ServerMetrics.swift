import AgentRunner
import Foundation
import Prometheus
import RalphAPI
import Synchronization

/// One server's metrics, in its own Prometheus registry (`GET /metrics` writes it out).
///
/// Every server instance owns its registry and creates its metrics in it explicitly, so several servers in one
/// process (the tests run many) never share a count, and nothing depends on swift-metrics' process-global
/// `MetricsSystem`. The executable may also bootstrap that global system with ``factory``, so what a library records
/// through swift-metrics lands in the same registry.
///
/// Counters and histograms are recorded where the thing happens (the request middleware, the stream routes, the
/// subscriber queues, the chat worker, the notification dispatcher, the catalog's folds); gauges of state the server
/// already keeps (runs by mode, approvals pending, resident memory, open files) are read when scraped
/// (``ScrapeSources``), never kept in a second copy that could drift.
public final class ServerMetrics: Sendable {
    /// The registry every metric of this server is in.
    public let registry: PrometheusCollectorRegistry

    /// A swift-metrics factory that records into ``registry``: for `MetricsSystem.bootstrap` in the executable (at most
    /// once per process), or for `Counter(label:dimensions:factory:)`-style metrics of code that speaks swift-metrics.
    public var factory: PrometheusMetricsFactory { PrometheusMetricsFactory(registry: registry) }

    /// The lagged-subscriber count last written to its counter (``syncLagged(_:)``).
    private let laggedSynced = Mutex(0)

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
    }

    // MARK: - Names

    /// Every metric's name and help, in one place (docs/operations.md lists the same). Computed: swift-prometheus'
    /// descriptor is not `Sendable`, so it cannot be kept in a static constant.
    enum Name {
        static var httpRequests: MetricNameDescriptor { descriptor("http_requests", unit: "total", "HTTP requests answered, by route pattern, method and status.") }
        static var httpDuration: MetricNameDescriptor { descriptor(
            "http_request_duration", unit: "seconds", "Time from a request's arrival until its response head is ready, by route pattern and method.") }
        static var sseOpen: MetricNameDescriptor { descriptor("sse_connections_open", unit: "", "Event streams open now (read at scrape time).") }
        static var sseFrames: MetricNameDescriptor { descriptor(
            "sse_frames_delivered", unit: "total",
            "Frames written to event streams' connections, by source: live (from the live feed) or log (read back from the durable log: history, resumes, catch-ups).") }
        static var sseCut: MetricNameDescriptor { descriptor(
            "sse_subscribers_cut", unit: "total", "Event streams closed by the server because their client read nothing for the stall timeout.") }
        static var sseCatchUps: MetricNameDescriptor { descriptor(
            "sse_subscribers_lagged", unit: "total",
            "Stream subscribers that fell behind their queue's budget and caught up from the durable log (never cut for it).") }
        static var sseResumes: MetricNameDescriptor { descriptor("sse_resumes", unit: "total", "Event streams resumed with Last-Event-ID (or ?after=), by route pattern.") }
        static var sseResumeDepth: MetricNameDescriptor { descriptor(
            "sse_resume_depth", unit: "events", "How far back resumed streams started: positions between the resumed id and the head, by route pattern.") }
        static var runs: MetricNameDescriptor { descriptor("runs", unit: "", "Runs the catalog knows, by mode (live, paused, suspended, complete).") }
        static var foldedLines: MetricNameDescriptor { descriptor("catalog_folded_lines", unit: "total", "Lines of run files folded into run state (blank and malformed ones included).") }
        static var malformedLines: MetricNameDescriptor { descriptor("catalog_malformed_lines", unit: "total", "Lines of run files folded that were not events (invalid JSON, no topic, too long).") }
        static var foldDuration: MetricNameDescriptor { descriptor("catalog_fold_duration", unit: "seconds", "Time of each fold of run-file lines into run state.") }
        static var chatTurns: MetricNameDescriptor { descriptor("chat_turns", unit: "total", "Chat turns ended, by backend and outcome (complete, interrupted, error).") }
        static var chatTurnDuration: MetricNameDescriptor { descriptor("chat_turn_duration", unit: "seconds", "Time from a chat turn's start to its end, by backend.") }
        static var chatCost: MetricNameDescriptor { descriptor("chat_cost_usd", unit: "total", "Cost the agent reported for ended chat turns, in US dollars, by backend.") }
        static var approvalsPending: MetricNameDescriptor { descriptor("chat_approvals_pending", unit: "", "Tool approvals waiting for a person now.") }
        static var approvalWait: MetricNameDescriptor { descriptor(
            "chat_approval_wait", unit: "seconds", "Time from a tool approval's request to its decision, by outcome (allowed, denied, cancelled).") }
        static var agentStarts: MetricNameDescriptor { descriptor("agent_process_starts", unit: "total", "Agent processes (claude, codex) started for chats, by backend.") }
        static var agentStartFailures: MetricNameDescriptor { descriptor(
            "agent_process_start_failures", unit: "total", "Agent processes that could not be started, by backend.") }
        static var agentExits: MetricNameDescriptor { descriptor(
            "agent_process_exits", unit: "total", "Agent processes that exited, by backend and how (exit_0, exit_nonzero, signal).") }
        static var notifications: MetricNameDescriptor { descriptor(
            "notification_deliveries", unit: "total", "Notification delivery attempts, by channel and outcome (delivered, retrying, failed, expired).") }
        static var residentMemory: MetricNameDescriptor { descriptor("process_resident_memory", unit: "bytes", "Resident memory of the server process, read at scrape time.") }
        static var openFiles: MetricNameDescriptor { descriptor("process_open_fds", unit: "", "Open file descriptors of the server process, read at scrape time.") }

        static func descriptor(_ name: String, unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "ralph_mobile", metricName: name, unitName: unit, helpText: help)
        }
    }

    /// Request latency buckets: 1 ms to 10 s.
    static let latencyBuckets: [Duration] = milliseconds([1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000])
    /// Fold buckets: 100 µs to 10 s (a chunk of a few lines is fast; a whole large file is not).
    static let foldBuckets: [Duration] = milliseconds([0.1, 0.5, 1, 5, 10, 50, 100, 500, 1000, 5000, 10000])
    /// Chat turn and approval wait buckets: 1 s to 1 h.
    static let longBuckets: [Duration] = milliseconds([1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600].map { $0 * 1000 })
    /// Durations of `values` milliseconds (to the microsecond).
    static func milliseconds(_ values: [Double]) -> [Duration] {
        values.map { Duration.microseconds(Int64(($0 * 1000).rounded())) }
    }

    /// Resume depth buckets, in events.
    static let depthBuckets: [Double] = [0, 1, 10, 50, 100, 500, 1000, 5000, 10000, 50000]

    // MARK: - HTTP

    /// A request was answered: `route` is the router's pattern (`/api/sessions/{id}`), never the raw path, so the
    /// number of series stays bounded.
    func requestAnswered(route: String, method: String, status: Int, duration: Duration) {
        registry.makeCounter(descriptor: Name.httpRequests, labels: [("route", route), ("method", method), ("status", String(status))]).increment()
        registry.makeDurationHistogram(descriptor: Name.httpDuration, labels: [("route", route), ("method", method)], buckets: Self.latencyBuckets)
            .record(duration)
    }

    // MARK: - Event streams

    /// A stream resumed after an id, `depth` positions behind the head.
    func streamResumed(route: String, depth: Int) {
        registry.makeCounter(descriptor: Name.sseResumes, labels: [("route", route)]).increment()
        registry.makeValueHistogram(descriptor: Name.sseResumeDepth, labels: [("route", route)], buckets: Self.depthBuckets).record(Double(max(0, depth)))
    }

    /// The counters every event stream writes into (through its ``StreamWatchdog/Watch``).
    var streamCounters: StreamCounters {
        StreamCounters(
            liveFrames: registry.makeCounter(descriptor: Name.sseFrames, labels: [("source", "live")]),
            loggedFrames: registry.makeCounter(descriptor: Name.sseFrames, labels: [("source", "log")]),
            cut: registry.makeCounter(descriptor: Name.sseCut, labels: [("reason", "stalled")]))
    }

    /// Brings the lagged-subscriber counter up to `total`, the fan-outs' own count since the start.
    func syncLagged(_ total: Int) {
        let counter = registry.makeCounter(descriptor: Name.sseCatchUps, labels: [])
        let delta = laggedSynced.withLock { synced -> Int in
            defer { synced = max(synced, total) }
            return max(0, total - synced)
        }
        if delta > 0 { counter.increment(by: Int64(delta)) }
    }

    // MARK: - Catalog

    /// The catalog folded `lines` lines (`malformed` of them not events) in `duration`.
    func folded(lines: Int, malformed: Int, duration: Duration) {
        registry.makeCounter(descriptor: Name.foldedLines, labels: []).increment(by: Int64(lines))
        registry.makeCounter(descriptor: Name.malformedLines, labels: []).increment(by: Int64(malformed))
        registry.makeDurationHistogram(descriptor: Name.foldDuration, labels: [], buckets: Self.foldBuckets).record(duration)
    }

    // MARK: - Chat

    /// A turn of a `backend` conversation was stored: counted once, when it is stored in an end state.
    func turnStored(_ turn: Turn, backend: String) {
        let outcome: String
        switch turn.state {
        case .queued, .running: return
        case .complete: outcome = "complete"
        case .interrupted: outcome = "interrupted"
        case .error: outcome = "error"
        }
        registry.makeCounter(descriptor: Name.chatTurns, labels: [("backend", backend), ("outcome", outcome)]).increment()
        if let started = turn.startedAt.flatMap(Timestamp.parse), let ended = turn.endedAt.flatMap(Timestamp.parse), ended >= started {
            registry.makeDurationHistogram(descriptor: Name.chatTurnDuration, labels: [("backend", backend)], buckets: Self.longBuckets)
                .record(.milliseconds(Int64(ended.timeIntervalSince(started) * 1000)))
        }
        if let cost = turn.costUsd, cost > 0, cost.isFinite {
            registry.makeCounter(descriptor: Name.chatCost, labels: [("backend", backend)]).increment(by: cost)
        }
    }

    /// An approval was stored: its wait is recorded once, when it is stored decided.
    func approvalStored(_ approval: Approval) {
        guard approval.state != .pending, let created = Timestamp.parse(approval.createdAt),
            let decided = approval.decidedAt.flatMap(Timestamp.parse), decided >= created
        else { return }
        registry.makeDurationHistogram(descriptor: Name.approvalWait, labels: [("outcome", approval.state.rawValue)], buckets: Self.longBuckets)
            .record(.milliseconds(Int64(decided.timeIntervalSince(created) * 1000)))
    }

    /// An agent process of `backend` started (or could not be).
    func agentStarted(backend: String, succeeded: Bool) {
        registry.makeCounter(descriptor: succeeded ? Name.agentStarts : Name.agentStartFailures, labels: [("backend", backend)]).increment()
    }

    /// An agent process of `backend` exited.
    func agentExited(backend: String, _ exit: ChildProcess.Exit) {
        let how: String
        switch exit {
        case .exited(0): how = "exit_0"
        case .exited: how = "exit_nonzero"
        case .signaled: how = "signal"
        }
        registry.makeCounter(descriptor: Name.agentExits, labels: [("backend", backend), ("exit", how)]).increment()
    }

    // MARK: - Notifications

    /// A delivery attempt through `channel` ended with `outcome` (as stored: delivered, retrying, failed, expired).
    func notificationAttempt(channel: NotificationChannel, outcome: String) {
        registry.makeCounter(descriptor: Name.notifications, labels: [("channel", channel.rawValue), ("outcome", outcome)]).increment()
    }
}

/// The event-stream counters, handed by the ``StreamWatchdog`` to every stream it watches.
struct StreamCounters: Sendable {
    /// Frames of the live feed written to a connection (by its writer task, or by its event loop directly).
    let liveFrames: Prometheus.Counter
    /// Frames read back from a durable log and written (history, resumes, catch-ups, a finished run's end).
    let loggedFrames: Prometheus.Counter
    /// Streams closed because their client read nothing for the stall timeout.
    let cut: Prometheus.Counter
}
