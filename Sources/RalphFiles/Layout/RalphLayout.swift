/// Where ralph keeps its files in a workspace: the one place that knows ralph's on-disk layout, so routes and tools ask
/// it instead of spelling paths (`.ralph/agent/scratchpad.md` in one place and `scratchpad.md` in another).
///
/// Paths are absolute when ``workspace`` is; nothing here touches the disk. Files are read under the workspace's
/// ``RootDirectory`` by whoever asks.
public struct RalphLayout: Sendable, Hashable {
    /// The workspace (a directory ralph runs in, or one of its `.worktrees/<name>`).
    public let workspace: String

    public init(workspace: String) {
        self.workspace = workspace
    }

    /// `.ralph/`: ralph's state directory (events files, locks, registries).
    public var stateDirectory: String { Self.stateDirectory(of: workspace, layout: .ralph) }
    /// `.ralph/agent/`: what the agent keeps between iterations (scratchpad, memories, tasks).
    public var agentDirectory: String { Self.agentDirectory(stateDirectory: stateDirectory) }
    /// `.ralph/loops.json`: the registry of the workspace's loops (primary and worktree loops).
    public var loopRegistry: String { stateDirectory + "/loops.json" }
    /// `.ralph/merge-queue.jsonl`: worktree loops waiting to be merged, and merged ones.
    public var mergeQueue: String { stateDirectory + "/merge-queue.jsonl" }
    /// `.ralph/current-loop-id`: the id of the loop running in the workspace.
    public var currentLoopID: String { stateDirectory + "/current-loop-id" }
    /// `.ralph/current-events`: the events file of the current run, relative to the workspace.
    public var currentEvents: String { Self.currentEvents(stateDirectory: stateDirectory) }
    /// `.ralph/agent/memories.md`.
    public var memories: String { agentDirectory + "/memories.md" }
    /// `.ralph/agent/tasks.jsonl`.
    public var tasks: String { agentDirectory + "/tasks.jsonl" }
    /// `.worktrees/`: where ralph puts the git worktrees of parallel loops.
    public var worktrees: String { workspace + "/" + Self.worktreesName }
    /// `presets/`: the workspace's preset configs.
    public var presets: String { workspace + "/presets" }
    /// `prompts/`: the workspace's prompt files.
    public var prompts: String { workspace + "/prompts" }
    /// `.git`: a repository's directory, or in a worktree a file that points to it.
    public var git: String { workspace + "/.git" }

    /// The git worktree of the loop `name`.
    public func worktree(_ name: String) -> String { worktrees + "/" + name }

    /// The scratchpad of a run whose state directory is `stateDirectory`: `agent/scratchpad.md` under `.ralph/`, and
    /// `scratchpad.md` directly under the legacy `.agent/`.
    public static func scratchpad(stateDirectory: String, layout: RunLocation.Layout) -> String {
        switch layout {
        case .ralph: agentDirectory(stateDirectory: stateDirectory) + "/scratchpad.md"
        case .agent: stateDirectory + "/scratchpad.md"
        }
    }

    /// The scratchpad of the workspace's current (`.ralph/`) run.
    public var scratchpad: String { Self.scratchpad(stateDirectory: stateDirectory, layout: .ralph) }
}
