import Foundation
import RalphAPI

/// ralph's registry of running loops, `.ralph/loops.json` (`{"loops":[{id, pid, started, prompt, worktree_path?,
/// workspace}]}`), read under an exclusive `flock` on the file itself, as ralph reads it, through the descriptor that
/// holds the lock (opened under the workspace's ``RootDirectory``: a registry linking out of the root is refused).
/// Entries whose process is gone are left out (ralph prunes them on its next access); this reader never writes.
/// Blocking.
public struct LoopRegistry: Sendable {
    public struct Entry: Sendable, Equatable {
        public var id: String
        public var pid: Int
        public var started: String
        public var prompt: String
        public var worktreePath: String?
        public var workspace: String

        public var info: LoopInfo {
            LoopInfo(id: id, status: worktreePath == nil ? "primary" : "worktree", prompt: prompt, pid: pid, startedAt: started, worktreePath: worktreePath, workspace: workspace)
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `<workspace>/.ralph/loops.json`.
    public let path: String
    /// The root the workspace lies in, which the registry is opened from.
    public let root: RootDirectory

    /// The registry of `workspace` (a canonical path under `root`).
    public init(workspace: String, root: RootDirectory) {
        self.path = RalphLayout(workspace: workspace).loopRegistry
        self.root = root
    }

    /// Every registered loop, alive or not.
    public func allEntries() throws -> [Entry] {
        let file = try FileLock.withLockedFile(path, in: root, exclusive: true) { fd throws(ConfinementError) in try RootDirectory.read(fd, limit: 16 << 20) }
        guard let text = file?.text else { return [] }
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return [] }
        guard case .object(let root)? = try? JSONParser.parse(text), case .array(let loops)? = root["loops"] else {
            throw Failure(description: "\(path) is not a loop registry")
        }
        return loops.compactMap { value in
            guard case .object(let o) = value, let id = o["id"]?.stringValue, let pid = o["pid"]?.intValue else { return nil }
            return Entry(
                id: id, pid: pid, started: o["started"]?.stringValue ?? "", prompt: o["prompt"]?.stringValue ?? "",
                worktreePath: o["worktree_path"]?.stringValue, workspace: o["workspace"]?.stringValue ?? ""
            )
        }
    }

    /// Loops that are alive: their process lives and, for a worktree loop, its worktree directory still exists (ralph
    /// 2.10's zombie-worktree rule; pruning still goes by the pid alone).
    public func liveEntries(isAlive: (Int) -> Bool = LivenessProbe.isProcessAlive) throws -> [Entry] {
        let workspace = String(path.dropLast("/.ralph/loops.json".count))
        return try allEntries().filter { entry in
            guard isAlive(entry.pid) else { return false }
            guard let worktree = entry.worktreePath, !worktree.isEmpty else { return true }
            return FileSystem.status(FileSystem.join(workspace, worktree))?.isDirectory == true
        }
    }
}

/// ralph's merge queue, `.ralph/merge-queue.jsonl`: `{"ts","loop_id","event":{"type":…}}` lines, event types `queued
/// {prompt}`, `merging {pid}`, `merged {commit}`, `needs_review {reason}`, `discarded {reason}`. Read under a shared
/// `flock` on the file, through the descriptor that holds it (opened under the workspace's ``RootDirectory``); a
/// malformed line is skipped (ralph would refuse the whole file). Blocking.
public struct MergeQueue: Sendable {
    /// `<workspace>/.ralph/merge-queue.jsonl`.
    public let path: String
    /// The root the workspace lies in, which the queue is opened from.
    public let root: RootDirectory

    /// The queue of `workspace` (a canonical path under `root`).
    public init(workspace: String, root: RootDirectory) {
        self.path = RalphLayout(workspace: workspace).mergeQueue
        self.root = root
    }

    /// The loops of the queue, folded from their events.
    public func items(worktreePaths: [String: String] = [:]) throws -> (pending: [MergeQueueItem], completed: [MergeQueueItem]) {
        let file = try FileLock.withLockedFile(path, in: root, exclusive: false) { fd throws(ConfinementError) in try RootDirectory.read(fd, limit: 64 << 20) }
        guard let text = file?.text else { return ([], []) }
        return Self.fold(text, worktreePaths: worktreePaths)
    }

    static func fold(_ text: String, worktreePaths: [String: String]) -> (pending: [MergeQueueItem], completed: [MergeQueueItem]) {
        var items: [String: MergeQueueItem] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            guard case .object(let o)? = try? JSONParser.parse(String(line)), let loop = o["loop_id"]?.stringValue,
                case .object(let event)? = o["event"], let type = event["type"]?.stringValue
            else { continue }
            let ts = o["ts"]?.stringValue ?? ""
            var item = items[loop] ?? MergeQueueItem(
                id: loop, status: "pending", state: "queued", prompt: "", worktreePath: worktreePaths[loop], queuedAt: ts, mergedAt: nil, updatedAt: ts,
                commit: nil, reason: nil
            )
            item.updatedAt = ts
            switch type {
            case "queued":
                item.prompt = event["prompt"]?.stringValue ?? item.prompt
                item.queuedAt = ts
                item.state = "queued"
                item.status = "pending"
            case "merging":
                item.state = "merging"
                item.status = "pending"
            case "merged":
                item.state = "merged"
                item.status = "completed"
                item.mergedAt = ts
                item.commit = event["commit"]?.stringValue
            case "needs_review":
                item.state = "needs_review"
                item.status = "failed"
                item.reason = event["reason"]?.stringValue
            case "discarded":
                item.state = "discarded"
                item.status = "completed"
                item.reason = event["reason"]?.stringValue
            default:
                continue
            }
            items[loop] = item
        }
        let all = Array(items.values)
        let pending = all.filter { $0.status == "pending" }.sorted { ($0.queuedAt, $0.id) > ($1.queuedAt, $1.id) }
        let completed = all.filter { $0.status != "pending" }.sorted { ($0.updatedAt, $0.id) > ($1.updatedAt, $1.id) }
        return (pending, completed)
    }
}
