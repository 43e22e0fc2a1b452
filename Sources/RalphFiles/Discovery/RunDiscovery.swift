/// Where a run lives.
public struct RunLocation: Sendable, Hashable {
    /// How the state directory is laid out.
    public enum Layout: String, Sendable, Hashable {
        /// `.ralph/` with `events-*.jsonl` (and legacy `events.jsonl`).
        case ralph
        /// Legacy `.agent/events.jsonl`.
        case agent
    }

    /// Session id (hash of ``file``).
    public let id: String
    /// Absolute path of the run file.
    public let file: String
    /// Absolute path of the `.ralph` / `.agent` directory holding it.
    public let stateDirectory: String
    /// Absolute path of the workspace (the directory that holds the state directory).
    public let workspace: String
    /// Absolute path of the configured root the workspace was found under.
    public let root: String
    public let layout: Layout

    /// `idNamespace`: see ``RunID/make(forPath:namespace:)``.
    public init(file: String, stateDirectory: String, workspace: String, root: String, layout: Layout, idNamespace: String = "") {
        self.id = RunID.make(forPath: file, namespace: idNamespace)
        self.file = file
        self.stateDirectory = stateDirectory
        self.workspace = workspace
        self.root = root
        self.layout = layout
    }

    /// The workspace relative to the root (`.` for the root).
    public var relativeWorkspace: String { FileSystem.relative(workspace, to: root) }
    /// The run file relative to the root.
    public var relativeFile: String { FileSystem.relative(file, to: root) }
    /// The file name (`events-20260205-083922.jsonl`).
    public var fileName: String { String(file.split(separator: "/").last ?? "") }
}

/// Finds ralph runs under workspace roots.
///
/// A workspace is a directory holding `.ralph/` or `.agent/`: each root itself, each of its first-level
/// subdirectories, and the git worktrees of either under `.worktrees/*`. Hidden directories other than
/// `.worktrees` and symbolic links are not followed (a link could lead out of the roots).
///
/// By construction, not by checking: every directory is listed through a descriptor opened from the file system root
/// with no symbolic link anywhere on the way (``RootDirectory/Links/refused``: `openat2` with `RESOLVE_NO_SYMLINKS`,
/// or `O_NOFOLLOW` on every component), and entries are classified by what their directory says they are (`d_type`,
/// or `fstatat` with `AT_SYMLINK_NOFOLLOW` on the directory's descriptor). A `.ralph` that is a link, or a workspace
/// swapped for one, is never opened. (The roots are canonical paths, so a link met on the way is one under a root.)
public enum RunDiscovery {
    /// The file system root, through which discovery opens directories with no link followed.
    static let fileSystem = RootDirectory(path: "/")

    /// Entries of `dir`, as its directory lists them; empty when it cannot be listed or a link is on its way.
    static func entries(of dir: String) -> [RootDirectory.Entry] {
        (try? fileSystem.list(dir, links: .refused)) ?? []
    }

    /// Whether `path` is a directory reached with no symbolic link on the way (itself included).
    static func isDirectory(_ path: String) -> Bool {
        (try? fileSystem.entryStatus(path, links: .refused))?.isDirectory == true
    }

    /// Whether `name` is a run file in a state directory of `layout`.
    public static func isRunFile(_ name: String, layout: RunLocation.Layout) -> Bool {
        if name == RalphLayout.legacyEventsName { return true }
        return layout == .ralph && name.hasPrefix(RalphLayout.runFilePrefix) && name.hasSuffix(RalphLayout.runFileSuffix)
            && name.count > RalphLayout.runFileName(stamp: "").count
    }

    /// Directories that may hold workspaces under `root` ("containers"): the root, its first-level subdirectories
    /// and `.worktrees` directories, and the worktrees themselves. Watching these catches new workspaces.
    public static func workspaceCandidates(root: String) -> (workspaces: [String], containers: [String]) {
        var result = workspaceCandidates(workspace: root)
        for dir in subdirectories(of: root) where !dir.hasPrefix(".") {
            let nested = workspaceCandidates(workspace: root + "/" + dir)
            result.workspaces += nested.workspaces
            result.containers += nested.containers
        }
        return result
    }

    /// One workspace and its git worktrees (`.worktrees/*`); also used for a workspace deeper than discovery looks.
    public static func workspaceCandidates(workspace: String) -> (workspaces: [String], containers: [String]) {
        var workspaces = [workspace]
        var containers = [workspace]
        let nested = RalphLayout(workspace: workspace).worktrees
        if isDirectory(nested) {
            containers.append(nested)
            for wt in subdirectories(of: nested) where !wt.hasPrefix(".") {
                workspaces.append(nested + "/" + wt)
                containers.append(nested + "/" + wt)
            }
        }
        return (workspaces, containers)
    }

    /// State directories (`.ralph`, `.agent`) of a workspace.
    public static func stateDirectories(of workspace: String) -> [(String, RunLocation.Layout)] {
        var result: [(String, RunLocation.Layout)] = []
        for layout in [RunLocation.Layout.ralph, .agent] {
            let directory = RalphLayout.stateDirectory(of: workspace, layout: layout)
            if isDirectory(directory) { result.append((directory, layout)) }
        }
        return result
    }

    /// Run files in a state directory.
    public static func runFiles(in stateDirectory: String, layout: RunLocation.Layout) -> [String] {
        entries(of: stateDirectory)
            .filter { $0.kind == .file && isRunFile($0.name, layout: layout) }
            .map { stateDirectory + "/" + $0.name }
            .sorted()
    }

    /// Every run under the roots (roots must be canonical absolute paths).
    public static func discover(roots: [String]) -> [RunLocation] {
        var seen = Set<String>()
        var result: [RunLocation] = []
        for root in roots {
            for workspace in workspaceCandidates(root: root).workspaces {
                for (stateDir, layout) in stateDirectories(of: workspace) {
                    for file in runFiles(in: stateDir, layout: layout) where seen.insert(file).inserted {
                        result.append(RunLocation(file: file, stateDirectory: stateDir, workspace: workspace, root: root, layout: layout))
                    }
                }
            }
        }
        return result
    }

    static func subdirectories(of dir: String) -> [String] {
        entries(of: dir).filter { $0.kind == .directory }.map(\.name).sorted()
    }
}
