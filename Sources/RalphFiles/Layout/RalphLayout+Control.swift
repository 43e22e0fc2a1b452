/// ralph's control files: the ones a companion writes to stop or resume a loop, and the one a suspended loop writes.
/// All live in the loop's own state directory (a worktree loop's `.worktrees/<name>/.ralph`).
extension RalphLayout {
    /// `stop-requested`: an empty file; the loop consumes it at its next iteration boundary (also while suspended) and
    /// ends with `loop.terminate` reason `stopped`. Written by `ralph loops stop`.
    public static let stopRequestedName = "stop-requested"
    /// `resume-requested`: an empty, single-use file; a loop suspended by a hook consumes it and goes on. Written by
    /// `ralph loops resume`.
    public static let resumeRequestedName = "resume-requested"
    /// `suspend-state.json`: written atomically when a hook with `on_error: suspend` fires; removed on resume.
    public static let suspendStateName = "suspend-state.json"

    public static func stopRequested(stateDirectory: String) -> String { stateDirectory + "/" + stopRequestedName }
    public static func resumeRequested(stateDirectory: String) -> String { stateDirectory + "/" + resumeRequestedName }
    public static func suspendState(stateDirectory: String) -> String { stateDirectory + "/" + suspendStateName }

    /// `.ralph/stop-requested`.
    public var stopRequested: String { Self.stopRequested(stateDirectory: stateDirectory) }
    /// `.ralph/resume-requested`.
    public var resumeRequested: String { Self.resumeRequested(stateDirectory: stateDirectory) }
    /// `.ralph/suspend-state.json`.
    public var suspendState: String { Self.suspendState(stateDirectory: stateDirectory) }
}
