import AgentRunner
import Foundation
import Hummingbird
import RalphAPI
import RalphFiles

/// ralph's parallel loops: the registry (`.ralph/loops.json`), the merge queue, starting a loop, and merging or
/// discarding one with `ralph loops merge|discard`.
struct LoopRoutes {
    let selector: WorkspaceSelector
    let roots: WorkspaceRoots
    let supervisor: RunSupervisor
    let catalog: RunCatalog

    /// `ralph loops merge` runs a whole merge loop; give it time.
    static let mergeTimeout = 15.0 * 60
    static let discardTimeout = 120.0

    func register(on routes: Routes) {
        routes.viewer.get("/api/loops") { request, _ in
            let workspace = try await selector.selection(for: request)
            return JSONResponse.make(LoopsResponse(loops: try await liveLoops(workspace).map(\.info)))
        }
        routes.viewer.get("/api/loops/{id}") { request, context in
            let id = context.parameters.get("id") ?? ""
            let workspace = try await selector.selection(for: request)
            guard let entry = try await liveLoops(workspace).first(where: { $0.id == id }) else { throw APIError.other(.notFound, .loopNotFound, id) }
            return JSONResponse.make(entry.info)
        }
        routes.admin.post("/api/loops") { request, context in try await spawn(request, context) }
        routes.admin.post("/api/loops/{id}/merge") { request, context in
            try await operate(request, context, verb: "merge", arguments: { ["loops", "merge", $0] }, failure: .mergeFailed, timeout: Self.mergeTimeout)
        }
        routes.admin.post("/api/loops/{id}/discard") { request, context in
            try await operate(request, context, verb: "discard", arguments: { ["loops", "discard", $0, "-y"] }, failure: .discardFailed, timeout: Self.discardTimeout)
        }
        routes.viewer.get("/api/merge-queue") { request, _ in
            let workspace = try await selector.selection(for: request)
            let (pending, completed) = try await blocking { () throws -> ([MergeQueueItem], [MergeQueueItem]) in
                let registry = LoopRegistry(workspace: workspace.path, root: workspace.root)
                let paths = Dictionary((try? registry.allEntries())?.compactMap { e in e.worktreePath.map { (e.id, $0) } } ?? [], uniquingKeysWith: { a, _ in a })
                do {
                    return try MergeQueue(workspace: workspace.path, root: workspace.root).items(worktreePaths: paths)
                } catch let error as ConfinementError {
                    throw APIError(error, doing: "read the merge queue")
                } catch {
                    throw APIError.internalError("cannot read the merge queue: \(error)")
                }
            }
            return JSONResponse.make(MergeQueueResponse(pending: pending, completed: completed))
        }
    }

    func liveLoops(_ workspace: WorkspaceSelector.Selection) async throws -> [LoopRegistry.Entry] {
        try await blocking {
            do {
                return try LoopRegistry(workspace: workspace.path, root: workspace.root).liveEntries()
            } catch let error as ConfinementError {
                throw APIError(error, doing: "read the loop registry")
            } catch {
                throw APIError.other(.internalServerError, .registryError, "\(error)")
            }
        }
    }

    /// `POST /api/loops`: `ralph run` in the workspace. With the primary loop busy, ralph itself runs the new loop in a
    /// git worktree (`.worktrees/<name>`) and registers it; `base_branch` is accepted when it is the branch checked out,
    /// since ralph's worktrees start from the current HEAD (it has no flag to choose another).
    func spawn(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let body = try await request.decode(as: SpawnLoopRequest.self, context: context)
        let prompt = try TextLimit.steering.freeText(body.prompt, field: "prompt")
        let selection = try await selector.selection(for: request)
        let workspace = selection.path
        let roots = self.roots
        let arguments = try await blocking { () throws -> [String] in
            var arguments = ["run", "-p", prompt, "--autonomous", "--no-tui"]
            if let config = body.configPath {
                arguments += ["-c", try StartRequestValidator(roots: roots).config(config, in: workspace)]
            }
            if let base = body.baseBranch, !base.isEmpty {
                switch GitHead.state(of: workspace, root: selection.root) {
                case .branch(let current) where base != current:
                    throw APIError.invalidBody(
                        "ralph starts worktree loops from the checked-out branch '\(current)' (it has no option to start from another); "
                            + "base_branch '\(base)' cannot be honoured: send '\(current)' or none")
                case .detached:
                    throw APIError.invalidBody(
                        "the repository is at a detached HEAD, and ralph starts worktree loops from it; base_branch '\(base)' cannot be honoured: send none")
                case .branch, .unknown:
                    break  // the branch checked out, or not a repository ralph could make a worktree of: ralph decides
                }
            }
            return arguments
        }
        let root = roots.root(containing: workspace) ?? workspace
        let outcome: RunSupervisor.StartOutcome
        do {
            var plan = RunSupervisor.StartPlan(workingDirectory: workspace, root: root, arguments: arguments)
            plan.requestID = context.requestID
            outcome = try await supervisor.start(plan)
        } catch {
            throw APIError.failedToSpawn(error.description)
        }
        // A worktree loop registers itself in the main repository's registry once its preflight passed: the registry is
        // read again whenever the catalog sees a run of the workspace (or its worktrees) change, for up to 5 s.
        let changes = supervisor.watchChanges(inWorkspace: workspace)
        defer { supervisor.endWatch(changes) }
        var entry: LoopRegistry.Entry?
        let deadline = ContinuousClock.now + .seconds(5)
        while entry == nil {
            entry = (try? await liveLoops(selection))?.first { $0.pid == outcome.pid }
            if entry == nil, !outcome.pending, catalog.snapshot(id: outcome.id)?.location.workspace == workspace { break }
            let remaining = deadline - ContinuousClock.now
            if entry != nil || remaining <= .zero { break }
            if !(await changes.next(timeout: remaining)) { break }
        }
        let response = SpawnLoopResponse(
            id: entry?.id ?? outcome.id, worktreePath: entry?.worktreePath ?? workspace, status: "starting", sessionId: outcome.pending ? nil : outcome.id,
            pid: outcome.pid
        )
        var result = JSONResponse.make(response, status: .created)
        result.headers[.location] = "/api/loops/\(response.id)"
        return result
    }

    /// Merge or discard: the loop must be a worktree loop known to the registry, the merge queue, or `.worktrees/`.
    func operate(
        _ request: Request, _ context: AppRequestContext, verb: String, arguments: (String) -> [String], failure: ErrorPrefix, timeout: Double
    ) async throws -> Response {
        let id = context.parameters.get("id") ?? ""
        // Loop ids are names (`bright-maple`, `loop-1769046733-a3f2`); anything else cannot be one, and never reaches a path.
        guard !id.isEmpty, id.count <= 128, !id.hasPrefix("."), id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
            throw APIError.other(.notFound, .loopNotFound, String(id.prefix(100)))
        }
        let selection = try await selector.selection(for: request)
        let workspace = selection.path
        let kind = try await blocking { () -> String? in
            if let entry = (try? LoopRegistry(workspace: workspace, root: selection.root).allEntries())?.first(where: { $0.id == id }) {
                return entry.worktreePath == nil ? "primary" : "worktree"
            }
            if (try? selection.root.status(RalphLayout(workspace: workspace).worktree(id)))?.isDirectory == true { return "worktree" }
            guard let queued = try? MergeQueue(workspace: workspace, root: selection.root).items() else { return nil }
            if queued.pending.contains(where: { $0.id == id }) { return "worktree" }
            // Merged or discarded, its worktree gone: there is nothing left for ralph to act on.
            return queued.completed.first(where: { $0.id == id }).map { "done:" + $0.state }
        }
        guard let kind else { throw APIError.other(.notFound, .loopNotFound, id) }
        if kind.hasPrefix("done:") { throw APIError.conflict("loop \(id) is already \(kind.dropFirst(5)): its worktree is gone") }
        guard kind == "worktree" else { throw APIError.other(.badRequest, .invalidOperation, "cannot \(verb) primary loop") }
        let output: RunSupervisor.CommandOutput
        do {
            output = try await supervisor.runRalphCommand(arguments(id), in: workspace, timeout: timeout)
        } catch {
            throw APIError.other(.internalServerError, .commandError, error.description)
        }
        guard output.exit == .exited(0) else {
            throw APIError.other(.internalServerError, failure, output.text.trimmingCharacters(in: .whitespacesAndNewlines).suffix(2000).description)
        }
        let past = verb == "merge" ? "merged" : "discarded"
        return JSONResponse.make(OperationResponse(success: true, message: "Loop \(id) \(past) successfully"))
    }
}
