// fake-ralph: a test double of `ralph run`, an external program that cannot be installed here.
//
// It behaves like ralph as far as the server can see: it parses ralph's flags (and rejects unknown ones the way
// clap does, exit 2), writes `.ralph/current-events` and an `events-*.jsonl` file, holds `.ralph/loop.lock` with
// flock (and runs in a `.worktrees/<name>` worktree registered in `.ralph/loops.json` when the lock is taken),
// appends orchestrator records, reads `human.guidance` lines and echoes them into its next record, asks a question
// and waits for `human.response` when told to, prints output, and on SIGTERM/SIGINT writes `loop.terminate` with
// reason `interrupted` and exits 130. It does no AI work.
//
// Its behaviour comes from a `fake_ralph:` section of the config file it is given, so each test controls its run:
//
//   fake_ralph:
//     iterations: 3          # records before LOOP_COMPLETE (also capped by --max-iterations)
//     pace: 0.2              # seconds per iteration
//     output_bytes: 1000     # bytes printed to stdout per iteration (stderr gets a line too)
//     start_delay: 0         # seconds before the run file appears
//     fail_with: 2           # exit with this code before starting a run (prints an error)
//     ask: "Which database?" # a human.interact question …
//     ask_at: 2              # … asked in this iteration
//     ignore_sigterm: false  # keep running on SIGTERM (to exercise SIGKILL)
//     suspend_at: 2          # a hook suspends the loop before this iteration (.ralph/suspend-state.json; resume-requested)
//     suspend_hook: ci-gate  # … the hook's name (also suspend_reason, suspend_mode: wait_for_resume)
//     wave_at: 2             # this iteration fans its hat out as an agent wave (wave_id/wave_index/wave_total lines) …
//     wave_total: 3          # … of this many workers
//     task_key: retry        # the first iteration adds an in_progress task with this stable key (and `started`) …
//     task_title: "Add retry" # … and this title
//     rpc_tool_seconds: 0.2  # with --rpc: how long an iteration's tool calls take (a steer lands in that time; default pace)
//     rpc_tool_calls: 1      # with --rpc: tool calls per iteration (tool_call_start/end events)
//     context_window: 200000 # with --rpc: iteration_end's context_window (context_tokens grow 20000 per iteration)
//     wave_fail: 1           # with wave_at: this worker of the wave fails (wave_worker_done success false)
//     stale_from: 2          # from this iteration on the same record is emitted: 3 in a row (one hat) end the loop `loop_stale`
//
// Also honoured: .ralph/stop-requested at each boundary → `stopped`; event_loop.cancellation_promise → `cancelled`;
// a worktree loop whose worktree vanished → `workspace_gone`, exit 1 (FakeLoop+Control.swift); the same emit 3 times in
// a row → `loop_stale`, exit 1 (FakeLoop+Stale.swift). With --rpc it speaks ralph 2.10.1's RPC (RpcPort*.swift): field
// names and types as ralph-proto's json_rpc.rs, `set_hat` refused "not yet implemented" as ralph does.
// Guidance is acknowledged (`human.guidance.ack`) in the iteration after it is read, and LOOP_COMPLETE waits for
// that. `RObot: {enabled: true, mode: web, timeout_seconds, checkin_interval_seconds}` asks through
// `.ralph/api/robot-question.json` / `robot-response.json` and writes `robot-checkin.json` (FakeLoop+RobotWeb.swift).

import Foundation
import RalphAPI
import RalphFiles
import RalphSimulator
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Set by SIGTERM / SIGINT: the loop ends with `interrupted` at its next check.
let stopRequested = Atomic<Bool>(false)

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(code)
}

@main
struct FakeRalph {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first != "run" { otherCommand(arguments) }
        let options = parseArguments(arguments)
        let cwd = FileManager.default.currentDirectoryPath
        let behaviour = Behaviour(options: options, cwd: cwd)

        let prompt: String
        if let text = options.prompt {
            prompt = text
        } else if let file = options.promptFile {
            guard let text = try? String(contentsOfFile: file.hasPrefix("/") ? file : cwd + "/" + file, encoding: .utf8) else {
                fail("Error: Prompt file not found: \(file)", code: 1)
            }
            prompt = text
        } else {
            fail("Error: no prompt given (use -p or -P)", code: 1)
        }
        if let code = behaviour.script["fail_with"] as? Int {
            fail("Error: preflight failed (fake_ralph.fail_with)", code: Int32(code))
        }
        handleSignals(ignoreSIGTERM: behaviour.bool("ignore_sigterm"))

        let loop = try FakeLoop(options: options, behaviour: behaviour, prompt: prompt, cwd: cwd)
        _ = loop.sleepChecking(behaviour.number("start_delay", 0))
        try loop.begin()
        loop.startRPC()
        loop.finish(try loop.run())
    }

    /// ralph treats SIGTERM like SIGINT: `loop.terminate` with `interrupted`, exit 130.
    static func handleSignals(ignoreSIGTERM: Bool) {
        guard !ignoreSIGTERM else {
            signal(SIGTERM, SIG_IGN)
            return
        }
        signal(SIGTERM) { _ in stopRequested.store(true, ordering: .relaxed) }
        signal(SIGINT) { _ in stopRequested.store(true, ordering: .relaxed) }
        // A parent may have started us with these blocked; a handler is useless while they are.
        var handled = sigset_t()
        sigemptyset(&handled)
        sigaddset(&handled, SIGTERM)
        sigaddset(&handled, SIGINT)
        sigprocmask(SIG_UNBLOCK, &handled, nil)
    }
}
