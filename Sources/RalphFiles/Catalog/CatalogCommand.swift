/// A request to the catalog's thread, carrying the continuation its caller waits on.
///
/// Callers post commands into ``RunCatalog``'s one mailbox and wake the thread through its pipe; the thread drains the
/// mailbox between passes of its loop, in order, and resumes each continuation once the command is done. After the
/// thread stopped, what is still posted is answered at once (nothing is done).
enum CatalogCommand: Sendable {
    /// Answered once the first discovery is done.
    case waitUntilReady(CheckedContinuation<Void, Never>)
    /// Read a run's file and probe its liveness now.
    case catchUp(id: String, CheckedContinuation<Void, Never>)
    /// Re-discover every workspace and read every run now.
    case synchronize(CheckedContinuation<Void, Never>)
    /// Serve a workspace discovery would not find (and re-scan now).
    case addWorkspace(workspace: String, root: String)
    /// Answered once the thread stopped, its last index writes done.
    case waitUntilFinished(CheckedContinuation<Void, Never>)
    /// A reader found the run's index entry damaged: write it again. Nobody waits on it.
    case repairIndexEntry(id: String)
    /// A background fold is done (``BackgroundFolds``): adopt it. Nobody waits on the command itself.
    case folded(id: String, BackgroundFolds.Outcome)

    /// Resumes the caller, if one waits.
    func answer() {
        switch self {
        case .waitUntilReady(let c), .catchUp(_, let c), .synchronize(let c), .waitUntilFinished(let c): c.resume()
        case .addWorkspace, .folded, .repairIndexEntry: break
        }
    }
}
