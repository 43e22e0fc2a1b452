/// The names of ralph's entries, for code that matches a name (an inotify event, a directory listing) or builds a
/// path inside a state directory it was given, rather than from a workspace. ``RalphLayout``'s paths are built from
/// these, so a name is spelled once.
extension RalphLayout {
    /// `.ralph`: ralph's state directory in a workspace.
    public static let stateDirectoryName = ".ralph"
    /// `.agent`: the legacy state directory (one `events.jsonl`, the scratchpad directly inside).
    public static let legacyStateDirectoryName = ".agent"
    /// `.worktrees`: the directory of a workspace's git worktrees (parallel loops).
    public static let worktreesName = ".worktrees"
    /// `current-events`: the pointer to the current run's events file, in a `.ralph` state directory.
    public static let currentEventsName = "current-events"
    /// `loop.lock`: the file ralph holds an exclusive `flock` on while it runs, in a `.ralph` state directory.
    public static let loopLockName = "loop.lock"
    /// `events.jsonl`: the legacy single run file (the only one in `.agent`, the fallback in `.ralph`).
    public static let legacyEventsName = "events.jsonl"
    /// The workspace's config file names, in the order ralph looks for them.
    public static let configNames = ["ralph.yml", "ralph.yaml"]

    /// The run file of a run started at `stamp` (`YYYYMMDD-HHMMSS`, with a `-<n>` suffix when a second run starts in
    /// the same second): `events-<stamp>.jsonl`.
    public static func runFileName(stamp: String) -> String { runFilePrefix + stamp + runFileSuffix }
    /// What every `.ralph` run file name starts with.
    public static let runFilePrefix = "events-"
    /// What every run file name ends with.
    public static let runFileSuffix = ".jsonl"

    /// The state directory of `layout` in `workspace`: `.ralph` or the legacy `.agent`.
    public static func stateDirectory(of workspace: String, layout: RunLocation.Layout) -> String {
        switch layout {
        case .ralph: workspace + "/" + stateDirectoryName
        case .agent: workspace + "/" + legacyStateDirectoryName
        }
    }

    /// `current-events` in the state directory `stateDirectory`.
    public static func currentEvents(stateDirectory: String) -> String { stateDirectory + "/" + currentEventsName }
    /// `loop.lock` in the state directory `stateDirectory`.
    public static func loopLock(stateDirectory: String) -> String { stateDirectory + "/" + loopLockName }
    /// `events.jsonl` in the state directory `stateDirectory`.
    public static func legacyEvents(stateDirectory: String) -> String { stateDirectory + "/" + legacyEventsName }
    /// The `agent/` directory of a `.ralph` state directory (scratchpad, memories, tasks).
    public static func agentDirectory(stateDirectory: String) -> String { stateDirectory + "/agent" }

    /// The workspace's config files, in the order ralph looks for them (`ralph.yml`, then `ralph.yaml`).
    public var configFiles: [String] { Self.configNames.map { workspace + "/" + $0 } }
    /// `.ralph/loop.lock`.
    public var loopLock: String { Self.loopLock(stateDirectory: stateDirectory) }
    /// Whether a run in `other` belongs to this workspace: the workspace itself or one of its worktrees (a loop
    /// started here runs in a worktree when the primary loop is busy).
    public func covers(_ other: String) -> Bool {
        other == workspace || other.hasPrefix(worktrees + "/")
    }
    /// The repository a worktree workspace (`<repo>/.worktrees/<name>`) belongs to; nil for any other workspace.
    public var repositoryOfWorktree: RalphLayout? {
        let parts = workspace.split(separator: "/")
        guard parts.count >= 2, parts[parts.count - 2] == Substring(Self.worktreesName) else { return nil }
        return RalphLayout(workspace: "/" + parts.dropLast(2).joined(separator: "/"))
    }
}
