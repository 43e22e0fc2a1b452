import Foundation
import RalphFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Short ralph commands (`ralph loops merge`, `ralph tools skill load`, …) run to completion.
extension RunSupervisor {
    /// What a finished command printed.
    public struct CommandOutput: Sendable {
        public var exit: ChildProcess.Exit
        /// stdout and stderr together (at most the last 1 MiB).
        public var text: String
    }

    /// Runs `ralph <arguments>` in `directory` and waits (without blocking) for it to finish; after `timeout` seconds
    /// its process group is killed.
    public func runRalphCommand(_ arguments: [String], in directory: String, timeout: Double) async throws(ControlError) -> CommandOutput {
        let log = logDirectory + "/command-\(Self.randomID()).log"
        defer { unlink(log) }
        var environment = configuration.environment
        environment = ChildEnvironment.scrubbed(environment)
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(configuration.ralphCommand, arguments: arguments, workingDirectory: directory, environment: environment, logFile: log)
        } catch {
            throw .spawnFailed(error.description)
        }
        logger.info("running \(child.executable) \(arguments.joined(separator: " "))", metadata: ["cwd": "\(directory)"])
        guard let exit = await child.waitForExit(timeout: .milliseconds(Int(timeout * 1000))) else {
            kill(-child.pid, SIGKILL)
            _ = await child.waitForExit()
            throw .conflict("`ralph \(arguments.joined(separator: " "))` did not finish within \(Int(timeout)) seconds and was stopped")
        }
        let size = FileSystem.status(log)?.size ?? 0
        let chunk = Self.readTail(log, bytes: min(size, 1 << 20))
        return CommandOutput(exit: exit, text: chunk)
    }
}
