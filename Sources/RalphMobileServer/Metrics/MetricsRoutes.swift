import Foundation
import Hummingbird
import Logging
import NIOCore
import RalphAPI
import RalphFiles

/// `GET /metrics`: the server's metrics in the Prometheus text exposition format, written by swift-prometheus from the
/// server's own registry (``ServerMetrics``) after the gauges read at scrape time are brought up to date.
///
/// Who may read it is ``RouteAccess/metrics``: anyone on a trusted loopback server (no key anywhere), otherwise an
/// admin key or the metrics key (`--metrics-key`), which grants this route and nothing else.
struct MetricsRoutes {
    /// The route's path (``AuthMiddleware`` authenticates it although it is outside `/api/`).
    static let path = "/metrics"
    /// The exposition format's content type (text format 0.0.4).
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    let metrics: ServerMetrics
    let sources: ScrapeSources

    func register(on routes: Routes) {
        routes.metrics.get("/metrics") { _, context in await scrape(context) }
    }

    func scrape(_ context: AppRequestContext) async -> Response {
        await sources.refresh(metrics, logger: context.logger)
        let bytes = metrics.registry.emitToBuffer()
        return Response(
            status: .ok, headers: [.contentType: Self.contentType, .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// What `GET /metrics` reads when it is scraped: state the server already keeps, so its gauges are never a second copy
/// that could drift from it.
struct ScrapeSources: Sendable {
    /// Runs the catalog knows, by mode as the API shows them (paused by this server's run control included).
    var runsByMode: @Sendable () -> [SessionMode: Int]
    /// Tool approvals waiting for a person (asked of the conversations database).
    var pendingApprovals: @Sendable () async throws -> Int
    /// Event streams open now (the watchdog watches every one).
    var openStreams: @Sendable () -> Int
    /// Subscribers that fell behind and caught up from the durable log since the start (a monotonic count the fan-outs
    /// keep).
    var laggedSubscribers: @Sendable () -> Int

    /// The modes always written, so a mode that no run has any more reads 0 rather than its last count.
    static let modes: [SessionMode] = [.live, .paused, .suspended, .complete]

    /// Brings every scrape-time metric up to date. A value that cannot be read is left out of the scrape (and logged),
    /// never written as a made-up number.
    func refresh(_ metrics: ServerMetrics, logger: Logger) async {
        let registry = metrics.registry
        let runs = runsByMode()
        for mode in Set(Self.modes).union(runs.keys) {
            registry.makeGauge(descriptor: ServerMetrics.Name.runs, labels: [("mode", mode.rawValue)]).set(to: Double(runs[mode] ?? 0))
        }
        registry.makeGauge(descriptor: ServerMetrics.Name.sseOpen, labels: []).set(to: Double(openStreams()))
        metrics.syncLagged(laggedSubscribers())
        let approvals = registry.makeGauge(descriptor: ServerMetrics.Name.approvalsPending, labels: [])
        do {
            approvals.set(to: Double(try await pendingApprovals()))
        } catch {
            logger.warning("metrics: cannot count the pending approvals; left out of this scrape", metadata: ["error": "\(error)"])
            registry.unregisterGauge(approvals)
        }
        let resident = registry.makeGauge(descriptor: ServerMetrics.Name.residentMemory, labels: [])
        if let bytes = Heap.residentBytes() { resident.set(to: Double(bytes)) } else { registry.unregisterGauge(resident) }
        let files = registry.makeGauge(descriptor: ServerMetrics.Name.openFiles, labels: [])
        if let count = Self.openFileDescriptors() { files.set(to: Double(count)) } else { registry.unregisterGauge(files) }
    }

    /// The process's open file descriptors: the entries of `/proc/self/fd` (as Prometheus' own process collectors
    /// count them, the one listing the directory included); nil where there is no `/proc`.
    static func openFileDescriptors() -> Int? {
        try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }
}
