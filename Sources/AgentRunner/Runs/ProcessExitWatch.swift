import CProcessSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Waits for a process that is not our child to end, without polling: a pidfd (Linux >= 5.3) becomes readable when
/// the process exits, and one thread sleeps in `poll` on it until then or until the timeout.
///
/// Our own children are waited for through ``ChildProcess/waitForExit(timeout:)`` instead (their reaper owns
/// `waitpid`). Where there is no pidfd (older kernels, Darwin) the liveness is re-checked every 25 ms, the only
/// polling left, and only on those systems.
enum ProcessExitWatch {
    /// True once `process` (the same process: pid and start time) is gone — exited or a zombie — false if it is still
    /// there after `timeout`.
    static func waitUntilGone(_ process: ProcessSnapshot, timeout: Duration) async -> Bool {
        let fd = rm_pidfd_open(pid_t(process.pid))
        if fd < 0 {
            if errno == ESRCH { return true }
            return await recheckUntilGone(process, timeout: timeout)
        }
        // The pid may have been reused between the snapshot and the open: then the process we meant is gone already.
        guard ProcessInspector.isAlive(process.pid, startTicks: process.startTicks) else {
            close(fd)
            return true
        }
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let readable = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let thread = Thread {
                let rc = rm_poll_readable(fd, milliseconds)
                close(fd)
                continuation.resume(returning: rc > 0)
            }
            thread.name = "ralph-mobile.exit-watch.\(process.pid)"
            thread.start()
        }
        return readable || !ProcessInspector.isAlive(process.pid, startTicks: process.startTicks)
    }

    /// The fallback without pidfd: re-checks the process table every 25 ms until it is gone or `timeout` passed.
    private static func recheckUntilGone(_ process: ProcessSnapshot, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !ProcessInspector.isAlive(process.pid, startTicks: process.startTicks) { return true }
            do {
                try await Task.sleep(for: .milliseconds(25))
            } catch {
                break
            }
        }
        return !ProcessInspector.isAlive(process.pid, startTicks: process.startTicks)
    }
}
