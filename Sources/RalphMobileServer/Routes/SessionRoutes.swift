import Foundation
import Hummingbird
import NIOPosix
import RalphAPI
import RalphFiles

/// Read routes of sessions (= ralph runs): list, status, detail, iterations, scratchpad.
struct SessionRoutes {
    let catalog: RunCatalog

    func register(on router: Router<AppRequestContext>) {
        router.get("/api/sessions") { _, context in try await list(context) }
        router.get("/api/sessions/{id}") { _, context in try await detail(context) }
        router.get("/api/sessions/{id}/status") { _, context in try await status(context) }
        router.get("/api/sessions/{id}/iterations") { _, context in try await iterations(context) }
        router.get("/api/sessions/{id}/scratchpad") { _, context in try await scratchpad(context) }
    }

    func list(_ context: AppRequestContext) async throws -> Response {
        try context.require(.viewer)
        await catalog.waitUntilReady()
        let now = Date()
        let sessions = catalog.snapshots()
            .sorted { ($0.startDate ?? .distantPast, $0.id) > ($1.startDate ?? .distantPast, $1.id) }
            .map { $0.session(now: now) }
        return JSONResponse.make(sessions)
    }

    func status(_ context: AppRequestContext) async throws -> Response {
        let snapshot = try await resolve(context)
        return JSONResponse.make(snapshot.session())
    }

    func detail(_ context: AppRequestContext) async throws -> Response {
        let snapshot = try await resolve(context)
        return JSONResponse.make(snapshot.detail())
    }

    func iterations(_ context: AppRequestContext) async throws -> Response {
        let snapshot = try await resolve(context)
        let items = snapshot.state.iterationItems()
        return JSONResponse.make(IterationsResponse(iterations: items, total: items.count))
    }

    func scratchpad(_ context: AppRequestContext) async throws -> Response {
        let snapshot = try await resolve(context)
        let location = snapshot.location
        let file = location.layout == .ralph ? location.stateDirectory + "/agent/scratchpad.md" : location.stateDirectory + "/scratchpad.md"
        let (content, modified) = try await NIOThreadPool.singleton.runIfActive {
            let status = FileSystem.status(file)
            return (FileSystem.readText(file, limit: 16 << 20), status?.modified)
        }
        return JSONResponse.make(
            ScratchpadResponse(content: content ?? "", updatedAt: content == nil ? nil : modified.map(Timestamp.format), path: FileSystem.relative(file, to: location.root))
        )
    }

    /// The run named by the `{id}` parameter (full id or unique prefix), after the first catalog pass.
    func resolve(_ context: AppRequestContext) async throws -> RunSnapshot {
        try context.require(.viewer)
        await catalog.waitUntilReady()
        let id = try Self.resolveID(context.parameters.get("id") ?? "", in: catalog)
        guard let snapshot = catalog.snapshot(id: id) else { throw APIError.sessionNotFound("session '\(id)' is gone") }
        return snapshot
    }

    static func resolveID(_ raw: String, in catalog: RunCatalog) throws(APIError) -> String {
        switch catalog.resolve(raw) {
        case .found(let id): return id
        case .notFound(let reason): throw .sessionNotFound(reason)
        case .ambiguous(let matches): throw .ambiguousID(raw, matches: matches)
        }
    }
}
