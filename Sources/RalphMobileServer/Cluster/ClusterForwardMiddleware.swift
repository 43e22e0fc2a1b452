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
        if parts.count == 2, parts[0] == "api", request.method == .post {
            switch parts[1] {
            case "conversations": return try await createConversation(request, context, next: next)
            case "approvals": return try await decideBatch(request, context, next: next)
            default: break
            }
        }
        // A library or workspace route about another host's run (`?session=<id>`: that run's workspace) is answered there.
        if parts.count >= 2, parts[0] == "api", parts[1] != "sessions", let session = request.uri.queryParameters["session"].map(String.init),
            !session.isEmpty, let remote = try await remoteRun(session)
        {
            return try await cluster.commands.forward(request, to: remote.hostID, identity: context.identity)
        }
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

    /// A conversation for another host (`host` in the body) is created there, by the host whose CLI will run it.
    private func createConversation(_ request: Request, _ context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let rebuilt = Request(head: request.head, body: .init(buffer: body))
        let host = ((try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any])?["host"] as? String
        let owner = try cluster.hosts.resolveRequested(host)
        guard owner != cluster.hosts.id else { return try await next(rebuilt, context) }
        return try await cluster.commands.forward(rebuilt, to: owner, identity: context.identity)
    }

    /// The same decision for several approvals, of conversations on several hosts: each host decides its own (in one
    /// command per host), and the results come back in the order asked. An offline host's approvals get its error.
    private func decideBatch(_ request: Request, _ context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let rebuilt = Request(head: request.head, body: .init(buffer: body))
        guard let batch = try? WireJSON.decode(BatchApprovalRequest.self, from: Data(buffer: body)), !batch.ids.isEmpty, batch.ids.count <= 200,
            Set(batch.ids).count == batch.ids.count
        else { return try await next(rebuilt, context) }  // the route says what is wrong with it
        var byHost: [String: [String]] = [:]
        for id in batch.ids { byHost[try await cluster.approvalHost(id) ?? cluster.hosts.id, default: []].append(id) }
        guard byHost.keys.contains(where: { $0 != cluster.hosts.id }) else { return try await next(rebuilt, context) }
        var results: [String: BatchApprovalResult] = [:]
        for (host, ids) in byHost {
            var part = batch
            part.ids = ids
            var head = request.head
            head.headerFields[.contentLength] = nil
            let partRequest = Request(head: head, body: .init(buffer: ByteBuffer(bytes: try WireJSON.encode(part))))
            do {
                let response =
                    host == cluster.hosts.id
                    ? try await next(partRequest, context) : try await cluster.commands.forward(partRequest, to: host, identity: context.identity)
                let bytes = try await CollectingBodyWriter.bytes(of: response)
                guard response.status == .ok, let decided = try? WireJSON.decode(BatchApprovalResponse.self, from: Data(bytes)) else {
                    let error = (try? WireJSON.decode(ErrorResponse.self, from: Data(bytes)))?.error ?? "host answered \(response.status.code)"
                    for id in ids { results[id] = BatchApprovalResult(id: id, approval: nil, error: error) }
                    continue
                }
                for result in decided.results { results[result.id] = result }
            } catch let error as APIError {
                for id in ids { results[id] = BatchApprovalResult(id: id, approval: nil, error: error.body.error) }
            }
        }
        return JSONResponse.make(BatchApprovalResponse(results: batch.ids.map { results[$0] ?? BatchApprovalResult(id: $0, approval: nil, error: "not decided") }))
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
        case (.get, ["events"]): return try await cluster.stream.response(request, context, remote: remote)
        default: return try await cluster.commands.forward(request, to: remote.hostID, identity: context.identity)
        }
    }
}

/// What the middleware asks run control: whether a run started here answers to an id (it may not be in the catalog
/// yet).
struct RunSupervisorLookup: Sendable {
    let hasStarted: @Sendable (String) -> Bool
}
