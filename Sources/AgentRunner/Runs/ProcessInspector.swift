import Foundation
import RalphFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the system says about a process (Linux `/proc`; reduced elsewhere).
public struct ProcessSnapshot: Sendable, Equatable, Codable {
    public var pid: Int
    public var processGroup: Int
    /// `R`, `S`, `D`, `T` (stopped), `Z` (zombie), …; `?` when unknown.
    public var state: String
    /// Start time in clock ticks since boot: with the pid, it identifies a process (pids are reused).
    public var startTicks: UInt64?
    /// Real user id.
    public var uid: UInt32?

    public var isZombie: Bool { state == "Z" || state == "X" }
    public var isStopped: Bool { state == "T" || state == "t" }
}

public enum ProcessInspector {
    /// The process `pid`, or nil if there is none (or it has been reaped).
    public static func snapshot(_ pid: Int) -> ProcessSnapshot? {
        guard pid > 0, pid <= Int(Int32.max) else { return nil }
        #if os(Linux)
        guard let stat = FileSystem.readText("/proc/\(pid)/stat", limit: 8192), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state(3) ppid(4) pgrp(5) … starttime(22).
        guard fields.count > 19, let group = Int(fields[2]) else { return nil }
        var uid: UInt32?
        if let status = FileSystem.readText("/proc/\(pid)/status", limit: 16384),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") })
        {
            uid = line.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first.flatMap { UInt32($0) }
        }
        return ProcessSnapshot(pid: pid, processGroup: group, state: String(fields[0]), startTicks: UInt64(fields[19]), uid: uid)
        #else
        guard kill(pid_t(pid), 0) == 0 || errno == EPERM else { return nil }
        return ProcessSnapshot(pid: pid, processGroup: Int(getpgid(pid_t(pid))), state: "?", startTicks: nil, uid: nil)
        #endif
    }

    /// Whether `pid` is a running (or stopped) process — not a zombie — and, when `startTicks` is given, the same
    /// process as then.
    public static func isAlive(_ pid: Int, startTicks: UInt64? = nil) -> Bool {
        guard let snapshot = snapshot(pid), !snapshot.isZombie else { return false }
        if let startTicks, let current = snapshot.startTicks, current != startTicks { return false }
        return true
    }

    /// Whether the process belongs to the user this server runs as.
    public static func belongsToCurrentUser(_ snapshot: ProcessSnapshot) -> Bool {
        guard let uid = snapshot.uid else { return true }
        return uid == getuid()
    }

    /// Whether the process is this server itself: a loop lock held by the server's own process must never be signalled
    /// (SIGSTOP or SIGTERM would stop the server, not a loop).
    public static func isCurrentProcess(_ snapshot: ProcessSnapshot) -> Bool {
        snapshot.pid == Int(getpid())
    }

    /// Where to send a signal meant for a process and everything it started: its process group, unless that is the
    /// server's own group (then only the process).
    public static func signalTarget(for snapshot: ProcessSnapshot) -> pid_t {
        let group = snapshot.processGroup
        return group > 0 && pid_t(group) != getpgrp() ? -pid_t(group) : pid_t(snapshot.pid)
    }
}
