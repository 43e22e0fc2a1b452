import Foundation
import RalphAPI
import Synchronization

/// The RPC channels of runs this server started as `ralph run --rpc`, by pending id, and who hears their changes.
public final class RpcChannels: Sendable {
    struct State {
        var channels: [String: RpcChannel] = [:]
        var observers: [Int: @Sendable (String) -> Void] = [:]
        var nextKey = 0
    }

    let state = Mutex(State())
}

/// ralph's RPC mode for the runs the supervisor starts (``Configuration/ralphRPC``): the run is spawned with `--rpc`
/// and pipes, its events become the session's ``RpcTelemetry``, and steer, guidance and abort go to it as commands.
extension RunSupervisor {
    /// Spawns ralph for `plan`: with `--rpc` and an ``RpcChannel`` when RPC is on, else with output to the log file.
    /// Returns the child and the arguments it was given.
    func spawnRun(_ plan: StartPlan, pendingID: String, log: String, environment: [String: String]) throws(ControlError) -> (ChildProcess, [String]) {
        guard configuration.ralphRPC else {
            do {
                return (try ChildProcess.spawn(configuration.ralphCommand, arguments: plan.arguments, workingDirectory: plan.workingDirectory, environment: environment, logFile: log), plan.arguments)
            } catch {
                throw .spawnFailed(error.description)
            }
        }
        let arguments = plan.arguments.contains("--rpc") ? plan.arguments : plan.arguments + ["--rpc"]
        let piped: ChildProcess.Piped
        do {
            piped = try ChildProcess.spawnPiped(configuration.ralphCommand, arguments: arguments, workingDirectory: plan.workingDirectory, environment: environment, logFile: log)
        } catch {
            throw .spawnFailed(error.description)
        }
        let channel = RpcChannel(input: piped.input, output: piped.output, logFile: log, logger: logger) { [weak self] in
            self?.rpcChanged(pendingID: pendingID)
        }
        rpcChannels.state.withLock { $0.channels[pendingID] = channel }
        return (piped.process, arguments)
    }

    /// The RPC channel of a run started here in RPC mode (by session id, pending id or a unique prefix).
    public func rpcChannel(sessionID: String) -> RpcChannel? {
        guard let run = startedRun(matching: sessionID) else { return nil }
        return rpcChannels.state.withLock { $0.channels[run.pendingID] }
    }

    /// What ralph's RPC events said of a session so far; nil for runs not started here in RPC mode.
    public func rpcTelemetry(sessionID: String) -> RpcTelemetry? {
        rpcChannel(sessionID: sessionID)?.telemetry
    }

    /// Whether a started run may still add to its log: its process runs, or its RPC output is still being read (the
    /// reader writes the log a little after ralph printed it).
    public func isProducingOutput(_ run: StartedRun) -> Bool {
        isRunning(run) || rpcChannels.state.withLock { $0.channels[run.pendingID] }?.telemetry.connected == true
    }

    /// Calls `observer` with the session id (the run id once known, else the pending id) whenever a run's telemetry
    /// changes; on the channel's reader thread, so it must be quick.
    @discardableResult
    public func observeRPC(_ observer: @escaping @Sendable (_ id: String) -> Void) -> Int {
        rpcChannels.state.withLock { s in
            s.nextKey += 1
            s.observers[s.nextKey] = observer
            return s.nextKey
        }
    }

    func rpcChanged(pendingID: String) {
        let id = state.withLock { $0.lifecycle.started[pendingID]?.runID } ?? pendingID
        let observers = rpcChannels.state.withLock { Array($0.observers.values) }
        observers.forEach { $0(id) }
    }

    /// Asks ralph to abort the run (RPC `abort`): it ends at once with `loop.terminate` (`interrupted`), without a
    /// signal. For runs started here in RPC mode; waits up to `timeout` for ralph's answer.
    public func abort(sessionID: String, reason: String, timeout: Duration = .seconds(5)) async throws(ControlError) -> RpcChannel.Outcome? {
        guard let channel = rpcChannel(sessionID: sessionID) else {
            throw .conflict("session \(sessionID) was not started by this server in RPC mode; stop it instead")
        }
        return try await channel.send("abort", ["reason": reason], timeout: timeout)
    }
}
