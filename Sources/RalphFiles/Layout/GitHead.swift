import Foundation

/// The branch checked out in a git work tree, read from its `HEAD` under the workspace's root.
public enum GitHead {
    /// What `HEAD` says.
    public enum State: Sendable, Equatable {
        /// `ref: refs/heads/<name>`.
        case branch(String)
        /// A commit id, or a ref outside `refs/heads/`.
        case detached
        /// No `.git` (not a repository), or a `.git` file that points outside the root: only the root is read.
        case unknown
    }

    /// The state of the work tree at `workspace`. A worktree's `.git` file (`gitdir: <path>`) is followed when it
    /// points inside the root. Refusals (a link out of the root) and unreadable files say `.unknown`: the caller then
    /// does not know the branch, which is all it needs.
    public static func state(of workspace: String, root: RootDirectory) -> State {
        var gitDirectory = RalphLayout(workspace: workspace).git
        do {
            if let status = try root.status(gitDirectory), status.isRegularFile {
                guard let pointer = try root.readFile(gitDirectory, limit: 4096)?.text, let range = pointer.range(of: "gitdir: ") else {
                    return .unknown
                }
                gitDirectory = FileSystem.join(workspace, pointer[range.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines))
            }
            guard let head = try root.readFile(gitDirectory + "/HEAD", limit: 4096)?.text else { return .unknown }
            return parse(head)
        } catch {
            return .unknown
        }
    }

    /// The branch checked out, nil when detached or unknown.
    public static func currentBranch(of workspace: String, root: RootDirectory) -> String? {
        if case .branch(let name) = state(of: workspace, root: root) { return name }
        return nil
    }

    /// The contents of a `HEAD` file.
    public static func parse(_ head: String) -> State {
        let line = head.trimmingCharacters(in: .whitespacesAndNewlines)
        let prefix = "ref: refs/heads/"
        guard line.hasPrefix(prefix) else { return .detached }
        let name = String(line.dropFirst(prefix.count))
        return .branch(name)
    }
}
