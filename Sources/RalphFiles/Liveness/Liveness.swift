import Foundation
import RalphAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Evidence that a workspace's loop is running.
public struct WorkspaceLiveness: Sendable, Equatable {
    /// The run file named by `.ralph/current-events` (absolute), or the legacy default when there is no marker.
    public var currentRunFile: String?
    /// Someone holds a lock on `.ralph/loop.lock` (ralph holds an exclusive `flock` while it runs).
    public var lockHeld = false
    /// Pid of the lock holder when the system tells (`/proc/locks`).
    public var lockHolderPID: Int?
    /// Pid of a live worktree loop registered in the repository's `.ralph/loops.json` for this workspace.
    public var worktreeLoopPID: Int?
    /// RObot web mode's question and check-in in `.ralph/api/` (read with the rest of the evidence, when `.ralph` or
    /// `.ralph/api` changes).
    public var robot = RobotWebFiles()
    /// When `.ralph/stop-requested` was written (its modification time), while it waits for the loop to consume it.
    public var stopRequestedAt: Date?
    /// The hook suspension `.ralph/suspend-state.json` describes, while it is there.
    public var suspension: Suspension?

    public init() {}

    /// Whether the workspace's current run is being executed.
    ///
    /// The `flock` on `loop.lock` is the evidence: ralph holds it for as long as it runs and the kernel releases it
    /// when the process dies. The pid written inside the file is not used, since pids are reused.
    public var alive: Bool { lockHeld || worktreeLoopPID != nil }

    /// The loop's process id, best evidence first.
    public var pid: Int? { lockHolderPID ?? worktreeLoopPID }
}

/// Locks held on the system, read from `/proc/locks` without touching any lock.
///
/// Probing `loop.lock` with `flock` itself would be unsafe: a ralph that starts during the probe would find the lock
/// taken and run in a new worktree instead of the workspace.
public struct LockTable: Sendable {
    struct Entry: Hashable {
        var major: UInt64
        var minor: UInt64
        var inode: UInt64
        var pid: Int
    }

    private var entries: [UInt64: [Entry]] = [:]

    /// The current table, or nil where `/proc/locks` does not exist.
    public static func current() -> LockTable? {
        guard let text = FileSystem.readText("/proc/locks", limit: 16 << 20) else { return nil }
        return LockTable(procLocks: text)
    }

    /// Parses the text of `/proc/locks` (`1: FLOCK  ADVISORY  WRITE 9077 fe:00:16220321 0 EOF`).
    public init(procLocks text: String) {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // Waiters ("1: -> FLOCK …") do not hold the lock.
            guard fields.count >= 6, fields[1] != "->" else { continue }
            let device = fields[5].split(separator: ":")
            guard device.count == 3, let pid = Int(fields[4]), let major = UInt64(device[0], radix: 16),
                let minor = UInt64(device[1], radix: 16), let inode = UInt64(device[2])
            else { continue }
            entries[inode, default: []].append(Entry(major: major, minor: minor, inode: inode, pid: pid))
        }
    }

    /// The pid holding a lock on the file with this device and inode, if any.
    public func holder(device: UInt64, inode: UInt64) -> Int? {
        guard let candidates = entries[inode] else { return nil }
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~UInt64(0xFFF))
        let minor = (device & 0xFF) | ((device >> 12) & ~UInt64(0xFF))
        return candidates.first { $0.major == major && $0.minor == minor }?.pid
    }
}

/// Reads a workspace's liveness evidence. Blocking; call it from the catalog thread.
///
/// ralph never links `current-events`, `loop.lock` or `loops.json`, so they are opened as discovery opens directories:
/// from the file system root with no symbolic link anywhere on the way (see ``RunDiscovery``); a link there is no
/// evidence.
public enum LivenessProbe {
    /// Probes the workspace holding `stateDirectory`.
    public static func probe(workspace: String, stateDirectory: String, layout: RunLocation.Layout, locks: LockTable?) -> WorkspaceLiveness {
        var result = WorkspaceLiveness()
        switch layout {
        case .agent:
            result.currentRunFile = RalphLayout.legacyEvents(stateDirectory: stateDirectory)
        case .ralph:
            if let marker = (try? RunDiscovery.fileSystem.readFile(RalphLayout.currentEvents(stateDirectory: stateDirectory), limit: 64 * 1024, links: .refused))?
                .text.trimmingCharacters(in: .whitespacesAndNewlines), !marker.isEmpty
            {
                result.currentRunFile = FileSystem.join(workspace, marker)
            } else if (try? RunDiscovery.fileSystem.entryStatus(RalphLayout.legacyEvents(stateDirectory: stateDirectory), links: .refused)) != nil {
                result.currentRunFile = RalphLayout.legacyEvents(stateDirectory: stateDirectory)
            }
        }
        let lockPath = RalphLayout.loopLock(stateDirectory: stateDirectory)
        if let status = try? RunDiscovery.fileSystem.status(lockPath, links: .refused) {
            if let locks {
                if let holder = locks.holder(device: status.device, inode: status.inode) {
                    result.lockHeld = true
                    result.lockHolderPID = holder
                }
            } else {
                result.lockHeld = isLockHeldByProbe(lockPath)
            }
        }
        result.worktreeLoopPID = worktreeLoopPID(workspace: workspace)
        if layout == .ralph, result.lockHeld, let newer = newerRunFile(than: result.currentRunFile, stateDirectory: stateDirectory) {
            // A loop holds the lock and has made a run file newer than the one `current-events` names: it is starting
            // that run and has not pointed the marker at it yet. Its run, not the one before, is the current one (or a
            // run just started would show as finished for a moment, and a stream of it would end).
            result.currentRunFile = newer
        }
        if layout == .ralph {
            result.robot = RobotWebFiles.read(stateDirectory: stateDirectory)
            probeControlFiles(stateDirectory: stateDirectory, into: &result)
        }
        return result
    }

    /// The newest stamped run file of the state directory (`events-<yyyyMMdd-HHmmss>[-n].jsonl`), when it is newer than
    /// `current` (or there is no current one); nil otherwise, and when `current` is not a stamped file (a legacy
    /// `events.jsonl` named on purpose is left alone).
    static func newerRunFile(than current: String?, stateDirectory: String) -> String? {
        let currentKey: RunFileStamp?
        if let current {
            guard let key = RunFileStamp(name: String(current.split(separator: "/").last ?? "")) else { return nil }
            currentKey = key
        } else {
            currentKey = nil
        }
        var newest: (key: RunFileStamp, name: String)?
        for entry in RunDiscovery.entries(of: stateDirectory) where entry.kind == .file {
            guard let key = RunFileStamp(name: entry.name) else { continue }
            if newest.map({ key > $0.key }) ?? true { newest = (key, entry.name) }
        }
        guard let newest, currentKey.map({ newest.key > $0 }) ?? true else { return nil }
        return stateDirectory + "/" + newest.name
    }

    /// A pending graceful stop and a hook suspension, from ralph's control files (opened with no link on the way).
    static func probeControlFiles(stateDirectory: String, into result: inout WorkspaceLiveness) {
        let fileSystem = RunDiscovery.fileSystem
        if let status = try? fileSystem.status(RalphLayout.stopRequested(stateDirectory: stateDirectory), links: .refused) {
            result.stopRequestedAt = status.modified
        }
        if let file = try? fileSystem.readFile(RalphLayout.suspendState(stateDirectory: stateDirectory), limit: 64 * 1024, links: .refused) {
            result.suspension = SuspendState.parse(file.bytes)
        }
    }

    /// For a worktree workspace (`<repo>/.worktrees/<name>`), the pid of its live loop in `<repo>/.ralph/loops.json`.
    /// As in ralph 2.10, an entry is alive only while its pid lives and its worktree directory exists (a worktree
    /// removed under a still-running process is a zombie, not a live loop).
    static func worktreeLoopPID(workspace: String) -> Int? {
        guard let repository = RalphLayout(workspace: workspace).repositoryOfWorktree else { return nil }
        let repo = repository.workspace
        guard let file = try? RunDiscovery.fileSystem.readFile(repository.loopRegistry, limit: 4 << 20, links: .refused),
            case .object(let o)? = try? JSONParser.parse(file.bytes), case .array(let loops)? = o["loops"]
        else { return nil }
        for case .object(let entry) in loops {
            guard let path = entry["worktree_path"]?.stringValue, FileSystem.join(repo, path) == workspace,
                let pid = entry["pid"]?.intValue, isProcessAlive(pid), FileSystem.status(workspace)?.isDirectory == true
            else { continue }
            return pid
        }
        return nil
    }

    /// Whether a process exists and is not a zombie.
    public static func isProcessAlive(_ pid: Int) -> Bool {
        guard pid > 0, pid <= Int(Int32.max) else { return false }
        if kill(pid_t(pid), 0) != 0 && errno != EPERM { return false }
        #if os(Linux)
        if let stat = FileSystem.readText("/proc/\(pid)/stat", limit: 4096), let close = stat.lastIndex(of: ")") {
            let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
            if state == "Z" || state == "X" { return false }
        }
        #endif
        return true
    }

    /// Fallback where `/proc/locks` is missing: a non-blocking *shared* lock attempt, released at once.
    static func isLockHeldByProbe(_ path: String) -> Bool {
        let fileSystem = RunDiscovery.fileSystem
        guard let components = try? fileSystem.components(of: path),
            let fd = try? fileSystem.openDescriptor(components, flags: O_RDONLY | O_NONBLOCK, links: .refused)
        else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }
}

/// When a stamped run file was made, from its name: `events-20260620-095959.jsonl`, and `-2`, `-3` … for later runs
/// started in the same second.
struct RunFileStamp: Comparable {
    var stamp: String
    var sequence: Int

    init?(name: String) {
        guard name.hasPrefix(RalphLayout.runFilePrefix), name.hasSuffix(RalphLayout.runFileSuffix) else { return nil }
        let middle = name.dropFirst(RalphLayout.runFilePrefix.count).dropLast(RalphLayout.runFileSuffix.count)
        let parts = middle.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, parts[0].count == 8, parts[1].count == 6,
            parts[0].allSatisfy(\.isASCIIDigit), parts[1].allSatisfy(\.isASCIIDigit)
        else { return nil }
        stamp = parts[0] + "-" + parts[1]
        if parts.count == 3 {
            guard let n = Int(parts[2]), n >= 2 else { return nil }
            sequence = n
        } else {
            sequence = 1
        }
    }

    static func < (a: RunFileStamp, b: RunFileStamp) -> Bool { (a.stamp, a.sequence) < (b.stamp, b.sequence) }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
