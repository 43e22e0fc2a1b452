import Foundation
import Hummingbird
import RalphAPI
import RalphFiles

/// Routes a request about another host's run or conversation to the host that owns it, after authentication (the
/// caller's role goes with it). Reads the cluster's copy can answer are answered here: a run's status and its event
/// stream, a conversation's rows and events (the store is shared); everything else — details folded from the run file,
/// pause, resume, stop, emit, steer, answers, messages, interrupts, approval decisions — is carried out by the owner
/// (``ClusterCommands``).
struct ClusterForwardMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let cluster: Cluster
    let catalog: RunCatalog
    let supervisor: RunSupervisorLookup

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count >= 3, parts[0] == "api" else { return try await next(request, context) }
        switch parts[1] {
        case "sessions":
            guard let remote = try await remoteRun(parts[2]) else { return try await next(request, context) }
            return try await session(request, context, remote: remote, rest: Array(parts.dropFirst(3)))
        case "conversations":
            guard let host = try await cluster.conversationHost(parts[2]), host != cluster.hosts.id else { return try await next(request, context) }
            // Reads come from the shared store; the owner carries out what changes something.
            if request.method == .get { return try await next(request, context) }
            return try await cluster.commands.forward(request, to: host, identity: context.identity)
        case "robot" where request.method == .post && (parts[2] == "response" || parts[2] == "guidance"):
            return try await robot(request, context, next: next, answer: parts[2] == "response")
        case "approvals" where request.method == .post && parts.count == 3:
            guard let host = try await cluster.approvalHost(parts[2]), host != cluster.hosts.id else { return try await next(request, context) }
            return try await cluster.commands.forward(request, to: host, identity: context.identity)
        default:
            return try await next(request, context)
        }
    }

    /// An answer or guidance for another host's run goes there (the run is named in the body).
    private func robot(_ request: Request, _ context: Context, next: (Request, Context) async throws -> Response, answer: Bool) async throws -> Response {
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let rebuilt = Request(head: request.head, body: .init(buffer: body))
        let object = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any]
        let session: String?
        if answer {
            let question = object?["question_id"] as? String
            session = question.flatMap { id in id.lastIndex(of: "-").map { String(id[..<$0]) } }
        } else {
            session = object?["session_id"] as? String
        }
        guard let session, !session.isEmpty, let remote = try await remoteRun(session) else { return try await next(rebuilt, context) }
        return try await cluster.commands.forward(rebuilt, to: remote.hostID, identity: context.identity)
    }

    /// The other host's run an id (or id prefix) names, unless a run of this host matches it.
    private func remoteRun(_ raw: String) async throws -> ClusterView.Remote? {
        await catalog.waitUntilReady()
        if case .found = catalog.resolve(raw) { return nil }
        if supervisor.hasStarted(raw) { return nil }
        let matches = cluster.view.matching(prefix: raw)
        guard !matches.isEmpty else { return nil }
        guard matches.count == 1, let remote = cluster.view.remote(matches[0]) else { throw APIError.ambiguousID(raw, matches: matches) }
        return remote
    }

    private func session(_ request: Request, _ context: Context, remote: ClusterView.Remote, rest: [String]) async throws -> Response {
        switch (request.method, rest) {
        case (.get, ["status"]): return JSONResponse.make(cluster.view.shown(remote))
        case (.get, ["events"]): return try cluster.stream.response(request, context, remote: remote)
        default: return try await cluster.commands.forward(request, to: remote.hostID, identity: context.identity)
        }
    }
}

/// What the middleware asks run control: whether a run started here answers to an id (it may not be in the catalog
/// yet).
struct RunSupervisorLookup: Sendable {
    let hasStarted: @Sendable (String) -> Bool
}
