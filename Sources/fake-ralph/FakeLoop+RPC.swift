import Foundation
import RalphAPI
import RalphFiles

#if canImport(Glibc)
import Glibc
#endif

/// RPC mode (`--rpc`) as the loop sees it: events for the loop's start, each iteration (with a scripted tool call or
/// two, and made-up but steady cost, tokens and context use), every record, and the end. The events file is written
/// exactly as without `--rpc`.
extension FakeLoop {
    /// Called once the loop holds its files: clears an urgent steer left from an earlier loop (ralph does at start),
    /// and in RPC mode announces the loop and starts reading commands.
    func startRPC() {
        removeUrgentSteer()
        guard options.rpc else { return }
        // A server that goes away closes our stdout: writes then fail instead of killing the loop.
        signal(SIGPIPE, SIG_IGN)
        let backend = options.backend ?? "claude"
        rpcPort.shared.withLock { s in
            s.enabled = true
            s.eventsFile = writer.eventsFile
            s.urgentSteerFile = layout.urgentSteer
            s.maxIterations = maxIterations
            s.backend = backend
            s.hats = hats
            s.startedAt = Date()
        }
        rpcPort.emit("loop_started", [
            "prompt": prompt, "max_iterations": maxIterations, "backend": backend, "workspace_root": workspace,
            "started_at": Int(Date().timeIntervalSince1970 * 1000),
        ])
        rpcPort.startReading()
    }

    /// At the iteration boundary: the iteration begins (`iteration_start`) and runs its tool calls, which take
    /// `rpc_tool_seconds` — the time in which a steer lands in this iteration. An `abort` ends the loop here.
    func rpcIterationBegins() -> Ending? {
        guard rpcPort.isEnabled else { return nil }
        endRPCIteration()
        let n = iteration + 1
        let hat = hats[(n - 1) % hats.count]
        let now = Date()
        rpcPort.shared.withLock { s in (s.iteration, s.hat, s.iterationStartedAt) = (n, hat, now) }
        rpcPort.emit("iteration_start", [
            "iteration": n, "max_iterations": maxIterations, "hat": hat, "hat_display": hat.capitalized, "backend": options.backend ?? "claude",
            "started_at": Int(now.timeIntervalSince1970 * 1000),
        ])
        let calls = max(0, Int(behaviour.number("rpc_tool_calls", 1)))
        let seconds = behaviour.number("rpc_tool_seconds", pace)
        for call in 0..<calls {
            let id = "tool-\(n)-\(call + 1)"
            let started = Date()
            rpcPort.emit("tool_call_start", ["iteration": n, "tool_call_id": id, "tool_name": "Bash", "input": ["command": "swift test --filter Step\(call + 1)"]])
            let finished = sleepChecking(seconds / Double(calls))
            rpcPort.emit("tool_call_end", [
                "iteration": n, "tool_call_id": id, "output": finished ? "Test Suite passed" : "interrupted", "is_error": !finished,
                "duration_ms": Int(Date().timeIntervalSince(started) * 1000),
            ])
            guard finished else { return Self.interrupted }
        }
        return nil
    }

    /// The hat of iteration `n`: the config's rotation (ralph 2.10.1 refuses `set_hat`: "not yet implemented").
    func hatFor(_ n: Int) -> String {
        hats[(n - 1) % hats.count]
    }

    /// Every record is an `orchestration_event`; an iteration's `<hat>.done` also ends it (`iteration_end`).
    func rpcRecorded(_ topic: String, _ payload: String, iteration n: Int, hat: String) {
        guard rpcPort.isEnabled else { return }
        rpcPort.emit("orchestration_event", ["topic": topic, "payload": payload, "source": hat])
        if topic.hasSuffix(".done"), rpcPort.shared.withLock({ $0.iteration == n }) { endRPCIteration() }
    }

    /// `iteration_end` for the iteration in progress, if one is: cost, tokens and context use grow with the iteration
    /// number, so tests can tell iterations apart (`context_window` from the script, default 200000).
    func endRPCIteration() {
        let window = Int(behaviour.number("context_window", 200_000))
        let ended = rpcPort.shared.withLock { s -> (n: Int, started: Date, complete: Bool)? in
            guard s.iteration > 0 else { return nil }
            defer { (s.iteration, s.hat) = (0, nil) }
            let n = s.iteration
            s.totalCost += Self.cost(n)
            return (n, s.iterationStartedAt, n >= s.maxIterations)
        }
        guard let ended else { return }
        let n = ended.n
        let fields: [String: Any] = [
            "iteration": n, "duration_ms": Int(Date().timeIntervalSince(ended.started) * 1000), "cost_usd": Self.cost(n), "input_tokens": 1000 * n,
            "output_tokens": 100 * n, "cache_read_tokens": 500 * n, "cache_write_tokens": 50, "context_window": window,
            "context_tokens": min(window, 20_000 * n), "loop_complete_triggered": ended.complete,
        ]
        rpcPort.emit("iteration_end", fields)
    }

    /// The made-up cost of iteration `n`: $3 per million input tokens, $15 per million output tokens.
    static func cost(_ n: Int) -> Double { Double(1000 * n) * 3e-6 + Double(100 * n) * 15e-6 }

    /// At the end: the last iteration ends, `loop_terminated` is sent, and an urgent steer nobody took is cleared (as
    /// ralph does at exit). An `abort` ends the loop like a signal, saying so in the status.
    func rpcFinishing(_ ending: Ending) -> Ending {
        removeUrgentSteer()
        guard rpcPort.isEnabled else { return ending }
        endRPCIteration()
        var ending = ending
        let (abort, cost, started) = rpcPort.shared.withLock { s in
            s.completed = true
            return (s.abortReason, s.totalCost, s.startedAt)
        }
        if let abort, ending.reason == "interrupted" { ending.status = "Aborted over RPC: \(abort)." }
        let now = Date()
        rpcPort.emit("loop_terminated", [
            "reason": Self.rpcReason(ending.reason), "total_iterations": iteration, "duration_ms": Int(now.timeIntervalSince(started) * 1000),
            "total_cost_usd": cost, "terminated_at": Int(now.timeIntervalSince1970 * 1000),
        ])
        return ending
    }

    /// ralph's RPC `TerminationReason` is coarser than `loop.terminate`'s: completion, max iterations, an interrupt
    /// or a stop, and `error` for everything else (`cancelled`, `loop_stale`, `workspace_gone` …).
    static func rpcReason(_ reason: String) -> String {
        switch reason {
        case "completed": "completed"
        case "max_iterations": "max_iterations"
        case "interrupted", "stopped": "interrupted"
        default: "error"
        }
    }

    /// What the loop prints: raw on the terminal, `text_delta` events in RPC mode.
    func writeOutput(_ text: String) {
        if rpcPort.isEnabled {
            rpcPort.emit("text_delta", ["iteration": iteration, "delta": text])
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }
}
