import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ChildProcess {
    /// A child whose stdin and stdout are pipes to the server (ralph's RPC mode), with stderr still appended to a log.
    public struct Piped: Sendable {
        public var process: ChildProcess
        /// Write end of the child's stdin (close-on-exec; the caller owns it).
        public var input: Int32
        /// Read end of the child's stdout (close-on-exec; the caller owns it).
        public var output: Int32
    }

    /// Starts `command` like ``spawn(_:arguments:workingDirectory:environment:logFile:)`` but with pipes on stdin and
    /// stdout. Unlike a log file, a pipe ties the child to this server process: when the server goes, the child's
    /// stdin ends and its writes to stdout fail (ralph ignores SIGPIPE, so its loop and events file go on).
    public static func spawnPiped(
        _ command: String, arguments: [String], workingDirectory: String, environment: [String: String], logFile: String
    ) throws(SpawnError) -> Piped {
        let executable = try resolve(command, path: environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
        let logFD = open(logFile, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard logFD >= 0 else { throw .logUnwritable(path: logFile, reason: String(cString: strerror(errno))) }
        defer { close(logFD) }
        var stdinPipe: [Int32] = [-1, -1]
        var stdoutPipe: [Int32] = [-1, -1]
        // Close-on-exec is set right after: children started meanwhile get descriptors 3 and up closed anyway.
        guard makePipe(&stdinPipe) else { throw .spawnFailed(command: executable, reason: "pipe: " + String(cString: strerror(errno))) }
        guard makePipe(&stdoutPipe) else {
            let reason = String(cString: strerror(errno))
            stdinPipe.forEach { close($0) }
            throw .spawnFailed(command: executable, reason: "pipe: " + reason)
        }
        // The child's ends are closed here once it has them (or when starting it failed).
        defer {
            close(stdinPipe[0])
            close(stdoutPipe[1])
        }
        let process: ChildProcess
        do {
            process = try launch(executable: executable, arguments: arguments, workingDirectory: workingDirectory, environment: environment) { actions in
                posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
                posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
                posix_spawn_file_actions_adddup2(&actions, logFD, 2)
            }
        } catch {
            close(stdinPipe[1])
            close(stdoutPipe[0])
            throw error
        }
        return Piped(process: process, input: stdinPipe[1], output: stdoutPipe[0])
    }

    /// `pipe` with both ends close-on-exec.
    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }
}
