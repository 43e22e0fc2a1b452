import RalphFiles
import Synchronization

/// Catalog changes to the runs of one workspace (or of its worktrees), for a caller that re-reads something ralph
/// writes beside its runs (the loop registry) each time they change instead of polling it. A change that comes while
/// nobody waits is kept, so none is lost between a read and the next wait.
public final class WorkspaceChangeWatch: Sendable {
    public let workspace: String
    let key: Int
    private let state = Mutex<(changed: Bool, waiter: CheckedContinuation<Bool, Never>?)>((false, nil))

    init(workspace: String, key: Int) {
        self.workspace = workspace
        self.key = key
    }

    /// Whether a run in `runWorkspace` belongs to this watch.
    func covers(_ runWorkspace: String) -> Bool {
        RalphLayout(workspace: workspace).covers(runWorkspace)
    }

    func notify() {
        let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard let waiter = s.waiter else {
                s.changed = true
                return nil
            }
            s.waiter = nil
            return waiter
        }
        waiter?.resume(returning: true)
    }

    /// True at the next change (or at once if one came since the last call), false if none comes within `timeout`.
    public func next(timeout: Duration) async -> Bool {
        await withDeadline(timeout) { await self.nextChange() ? true : nil } ?? false
    }

    /// True at the next change; false when the task is cancelled.
    private func nextChange() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { s -> Bool? in
                    if s.changed {
                        s.changed = false
                        return true
                    }
                    if Task.isCancelled { return false }
                    s.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume(returning: false)
        }
    }
}
