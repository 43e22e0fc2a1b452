import AgentRunner
import Foundation
import Hummingbird
import NIOPosix
import RalphAPI
import RalphFiles

/// Read routes of sessions (= ralph runs): list, status, detail, iterations, scratchpad.
struct SessionRoutes {
    let catalog: RunCatalog
    let lookup: SessionLookup
    /// Told when a run's status is asked (the original app's screen opening: its next stream gets a full replay).
    let legacyStreams: LegacyStreamClients
    /// This server as a host (each session says its host), and the other hosts' runs when it is in a cluster.
    let hosts: HostRegistry
    let cluster: ClusterView?
    let listEncoder: SessionListEncoder
    /// The finished runs' entries of the list, kept between lists (a server not in a cluster).
    let settledList: SettledSessionList

    init(catalog: RunCatalog, lookup: SessionLookup, legacyStreams: LegacyStreamClients, hosts: HostRegistry, cluster: ClusterView?) {
        self.catalog = catalog
        self.lookup = lookup
        self.legacyStreams = legacyStreams
        self.hosts = hosts
        self.cluster = cluster
        listEncoder = SessionListEncoder()
        settledList = SettledSessionList(encoder: listEncoder)
    }

    func register(on routes: Routes) {
        routes.viewer.get("/api/sessions") { request, context in try await list(request, context) }
        routes.viewer.get("/api/sessions/{id}") { _, context in try await detail(context) }
        routes.viewer.get("/api/sessions/{id}/status") { request, context in try await status(request, context) }
        routes.viewer.get("/api/sessions/{id}/iterations") { _, context in try await iterations(context) }
        routes.viewer.get("/api/sessions/{id}/scratchpad") { _, context in try await scratchpad(context) }
    }

    /// Every run, newest first — of every host in a cluster; `?host=<name or id>` keeps one host's.
    func list(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        await catalog.waitUntilReady()
        let now = Date()
        let paused = lookup.supervisor.pausedRunIDs()
        let stops = lookup.supervisor.stopRecords()
        let filter = request.uri.queryParameters["host"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        let session = { (run: RunSnapshot) in hosts.stamp(run.session(paused: paused.contains(run.id), stop: stops[run.id], now: now)) }
        // Runs this server started whose events file does not exist yet come first: they are the newest.
        let pending = lookup.supervisor.pendingSessions(now: now).map(hosts.stamp)
        if cluster == nil && filter == nil {
            // Only what changed since the last list is built (the same bytes as below).
            return listEncoder.response(logger: context.logger) { () throws(SessionListEncoder.Failure) in
                try settledList.body(catalog: catalog, records: paused.union(stops.keys), pending: pending, session: session)
            }
        }
        // Sorted by small keys, not by the snapshots themselves (moving large values around dominates otherwise).
        var runs = catalog.snapshots().map { (start: ($0.startDate ?? .distantPast).timeIntervalSince1970, session: session($0)) }
        runs += cluster?.sessions(now: now) ?? []
        var sessions = pending + runs.sorted { ($0.start, $0.session.id) > ($1.start, $1.session.id) }.map(\.session)
        if let filter {
            sessions = sessions.filter { HostRegistry.matches($0, host: filter) }
        }
        return listEncoder.response(sessions, logger: context.logger)
    }

    func status(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        switch try await target(context) {
        case .run(let snapshot):
            legacyStreams.statusAsked(client: LegacyStreamClients.client(request, context), session: snapshot.id)
            return JSONResponse.make(hosts.stamp(snapshot.session(paused: lookup.supervisor.isPaused(snapshot.id), stop: lookup.supervisor.stopRecord(for: snapshot.id))))
        case .pending(let started): return JSONResponse.make(try pendingSession(started))
        }
    }

    func detail(_ context: AppRequestContext) async throws -> Response {
        switch try await target(context) {
        case .run(let snapshot):
            var detail = lookup.withRPC(
                try await lookup.detailed(snapshot).detail(paused: lookup.supervisor.isPaused(snapshot.id), stop: lookup.supervisor.stopRecord(for: snapshot.id)))
            detail.session = hosts.stamp(detail.session)
            return JSONResponse.make(detail)
        case .pending(let started):
            let session = try pendingSession(started)
            return JSONResponse.make(
                SessionDetail(
                    session: session, stopReason: nil, hatFlow: [], hatTransitions: 0, hatUsage: [],
                    iterationStats: IterationStats(count: 0, current: 0, total: nil, averageDurationSecs: nil, estimatedRemainingSecs: nil),
                    backpressure: nil, tokens: nil, recentToolCalls: [], recentEvents: [], pendingQuestion: nil, lineCount: 0, malformedLines: 0,
                    rpc: lookup.supervisor.rpcTelemetry(sessionID: started.pendingID)
                )
            )
        }
    }

    func iterations(_ context: AppRequestContext) async throws -> Response {
        guard case .run(let snapshot) = try await target(context) else { return JSONResponse.make(IterationsResponse(iterations: [], total: 0)) }
        let items = try await lookup.detailed(snapshot).state.iterationItems()
        return JSONResponse.make(IterationsResponse(iterations: items, total: items.count))
    }

    func scratchpad(_ context: AppRequestContext) async throws -> Response {
        let directory: (state: String, layout: RunLocation.Layout, root: String)
        switch try await target(context) {
        case .run(let snapshot): directory = (snapshot.location.stateDirectory, snapshot.location.layout, snapshot.location.root)
        case .pending(let started): directory = (RalphLayout(workspace: started.workingDirectory).stateDirectory, .ralph, started.root)
        }
        let file = RalphLayout.scratchpad(stateDirectory: directory.state, layout: directory.layout)
        // Opened from the root's descriptor and read through the one it returns: a scratchpad (or `.ralph`, or
        // `.ralph/agent`) that links out of the root is refused.
        let read = try await NIOThreadPool.singleton.runIfActive { () -> Result<RootDirectory.FileContent?, ConfinementError> in
            do throws(ConfinementError) { return .success(try RootDirectory(path: directory.root).readFile(file, limit: 16 << 20)) } catch { return .failure(error) }
        }
        let content: String?
        let modified: Date?
        switch read {
        case .success(let file):
            (content, modified) = (file?.text, file?.status.modified)
        case .failure(let error) where error.isRefusal:
            throw APIError(error, doing: "read the scratchpad")
        case .failure:
            (content, modified) = (nil, nil)
        }
        return JSONResponse.make(
            ScratchpadResponse(content: content ?? "", updatedAt: content == nil ? nil : modified.map(Timestamp.format), path: FileSystem.relative(file, to: directory.root))
        )
    }

    func target(_ context: AppRequestContext) async throws(APIError) -> SessionLookup.Target {
        try await lookup.target(context.parameters.get("id") ?? "")
    }

    func pendingSession(_ started: RunSupervisor.StartedRun) throws(APIError) -> Session {
        guard let session = lookup.session(started) else {
            throw .notRunning("session \(started.pendingID) ended (\(started.exit ?? "process gone")) before ralph created its events file")
        }
        return session
    }
}
