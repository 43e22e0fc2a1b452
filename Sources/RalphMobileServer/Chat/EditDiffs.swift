import AgentRunner
import Foundation
import NIOPosix
import RalphAPI
import RalphFiles
import Synchronization

/// The diffs a conversation shows for its agent's file edits: what an edit will change, on its approval (computed
/// against the files as they are on disk, confined to the workspace roots), and what it changed once it ran (the
/// files as they were when the call was announced against the files afterwards).
///
/// Reads go through the thread pool, never the async runtime. Edits are recognised by ``DiffPreview`` (Claude's
/// `Write` / `Edit` / `MultiEdit`, Codex's `apply_patch`); any other call passes unchanged.
final class EditDiffs: Sendable {
    private let preview: DiffPreview
    /// The files of each announced edit as they were before it ran, by tool use id, until its result arrives.
    private let before = Mutex<[String: [DiffPreview.Change]]>([:])
    /// How many announced edits are remembered at most (an agent announcing edits whose results never come).
    static let remembered = 64

    init(roots: WorkspaceRoots, cwd: String) {
        self.preview = DiffPreview(roots: roots, cwd: cwd)
    }

    /// `event` with the diffs it should carry: a file edit's permission request gets what it will change now, a file
    /// edit's result what it changed; a file edit being announced is remembered for that.
    func enrich(_ event: AgentEvent) async -> AgentEvent {
        switch event {
        case .toolUse(_, let toolUseID, let name, let input, nil):
            let changes = await self.changes(tool: name, input: input)
            if !changes.isEmpty { remember(toolUseID, changes) }
            return event
        case .permissionRequest(var request):
            let changes = await self.changes(tool: request.toolName, input: request.input)
            guard !changes.isEmpty else { return event }
            request.diffs = changes.map(\.diff)
            if let toolUseID = request.toolUseID, before.withLock({ $0[toolUseID] == nil }) { remember(toolUseID, changes) }
            return .permissionRequest(request)
        case .toolResults(var results, let parent):
            for index in results.indices {
                guard let changes = before.withLock({ $0.removeValue(forKey: results[index].toolUseID) }), !results[index].isError else { continue }
                results[index].diffs = await applied(changes)
            }
            return .toolResults(results, parentToolUseID: parent)
        default:
            return event
        }
    }

    /// Takes the files `toolUseID` edits as they are now as what its applied diff starts from (it is about to run).
    func snapshot(toolUseID: String, tool: String, input: JSONValue) async {
        let changes = await self.changes(tool: tool, input: input)
        if !changes.isEmpty { remember(toolUseID, changes) }
    }

    /// What `approval` will change if the files are as they are now (a pending approval read again).
    func current(_ approval: Approval) async -> [FileDiff]? {
        let changes = await self.changes(tool: approval.toolName, input: approval.input)
        return changes.isEmpty ? approval.diffs : changes.map(\.diff)
    }

    private func changes(tool: String, input: JSONValue) async -> [DiffPreview.Change] {
        let preview = preview
        return (try? await NIOThreadPool.singleton.runIfActive { preview.changes(tool: tool, input: input) }) ?? []
    }

    /// Each file's snapshot from before the call against the file now.
    private func applied(_ changes: [DiffPreview.Change]) async -> [FileDiff] {
        let preview = preview
        let diffs = try? await NIOThreadPool.singleton.runIfActive {
            changes.compactMap { change -> FileDiff? in
                guard let path = change.absolutePath, let before = change.before else { return nil }
                let target = change.absoluteMovePath ?? path
                guard case .success(let after) = preview.read(target) else { return nil }
                return preview.diff(path: change.diff.path, movePath: change.diff.movePath, before: before, after: after)
            }
        }
        return diffs ?? []
    }

    private func remember(_ toolUseID: String, _ changes: [DiffPreview.Change]) {
        before.withLock { before in
            before[toolUseID] = changes
            if before.count > Self.remembered, let any = before.keys.first(where: { $0 != toolUseID }) { before[any] = nil }
        }
    }
}
