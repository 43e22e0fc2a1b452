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

import Foundation
import RalphAPI
import RalphFiles
import RalphSimulator
import Synchronization
import Yams

#if canImport(Glibc)
import Glibc
#endif

let stopRequested = Atomic<Bool>(false)

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(code)
}

struct Options {
    var config: String?
    var prompt: String?
    var promptFile: String?
    var maxIterations: Int?
    var backend: String?
}

/// `ralph loops merge <id>` / `ralph loops discard <id> -y` / `ralph tools skill load <name>`, as far as files go.
func otherCommand(_ args: [String]) -> Never {
    let cwd = FileManager.default.currentDirectoryPath
    switch (args.first, args.dropFirst().first) {
    case ("loops", "merge"?), ("loops", "discard"?):
        let merging = args[1] == "merge"
        guard args.count >= 3 else { fail("error: the following required arguments were not provided:\n  <LOOP_ID>", code: 2) }
        let id = args[2]
        if !merging && !args.contains("-y") && !args.contains("--yes") { fail("Error: refusing to discard \(id) without confirmation (use -y)", code: 1) }
        let registryPath = RalphLayout(workspace: cwd).loopRegistry
        var loops: [[String: Any]] = []
        if let data = FileManager.default.contents(atPath: registryPath), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            loops = object["loops"] as? [[String: Any]] ?? []
        }
        let worktree = RalphLayout(workspace: cwd).worktree(id)
        let entry = loops.first { $0["id"] as? String == id }
        guard entry != nil || FileManager.default.fileExists(atPath: worktree) else { fail("Error: No loop found matching '\(id)'", code: 1) }
        if let pid = entry?["pid"] as? Int, kill(pid_t(pid), 0) == 0 { fail("Error: loop \(id) is still running (pid \(pid))", code: 1) }
        func queue(_ event: [String: Any]) {
            let line: [String: Any] = ["ts": Timestamp.now(), "loop_id": id, "event": event]
            let data = try! JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
            try? EventFileAppender.append(line: Array(data), to: RalphLayout(workspace: cwd).mergeQueue, create: true)
        }
        if merging {
            queue(["type": "merging", "pid": Int(getpid())])
            queue(["type": "merged", "commit": String(format: "%08x", UInt32.random(in: 0...UInt32.max))])
        } else {
            queue(["type": "discarded", "reason": "User requested discard"])
        }
        try? FileManager.default.removeItem(atPath: worktree)
        loops.removeAll { $0["id"] as? String == id }
        try? JSONSerialization.data(withJSONObject: ["loops": loops], options: [.prettyPrinted]).write(to: URL(fileURLWithPath: registryPath))
        print(merging ? "Merged loop \(id)" : "Discarded loop \(id)")
        exit(0)
    case ("tools", "skill"?) where args.count >= 4 && args[2] == "load":
        let name = args[3]
        guard SkillRegistry.builtins.contains(name) else { fail("Error: Skill '\(name)' not found", code: 1) }
        print(SkillRegistry.wrap(name: name, body: "# \(name)\n\nBuilt-in skill text (from the fake-ralph double)."))
        exit(0)
    default:
        fail("error: unrecognized subcommand '\(args.first ?? "")'\n\nUsage: ralph <COMMAND>\n\nFor more information, try '--help'.", code: 2)
    }
}

func parseArguments(_ args: [String]) -> Options {
    guard args.first == "run" else {
        fail("error: unrecognized subcommand '\(args.first ?? "")'\n\nUsage: ralph <COMMAND>\n\nFor more information, try '--help'.", code: 2)
    }
    var options = Options()
    var i = 1
    func value(_ flag: String) -> String {
        i += 1
        guard i < args.count else { fail("error: a value is required for '\(flag) <VALUE>' but none was supplied", code: 2) }
        return args[i]
    }
    while i < args.count {
        let arg = args[i]
        switch arg {
        case "-c", "--config": options.config = value(arg)
        case "-p", "--prompt": options.prompt = value(arg)
        case "-P", "--prompt-file": options.promptFile = value(arg)
        case "--max-iterations":
            guard let n = Int(value(arg)), n > 0 else { fail("error: invalid value for '--max-iterations <MAX_ITERATIONS>'", code: 2) }
            options.maxIterations = n
        case "-b", "--backend": options.backend = value(arg)
        case "-a", "--autonomous", "--no-tui": break
        default: fail("error: unexpected argument '\(arg)' found\n\nUsage: ralph run [OPTIONS]", code: 2)
        }
        i += 1
    }
    return options
}

@main
struct FakeRalph {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first != "run" { otherCommand(arguments) }
        let options = parseArguments(arguments)
        let cwd = FileManager.default.currentDirectoryPath

        // Config.
        var behaviour: [String: Any] = [:]
        var robotTimeout = 30.0
        var hats = ["planner", "builder", "reviewer"]
        if let config = options.config, !config.hasPrefix("builtin:") {
            let path = config.hasPrefix("/") ? config : cwd + "/" + config
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("Error: Config file not found: \(config)", code: 1) }
            guard let yaml = (try? Yams.load(yaml: text)) as? [String: Any] else { fail("Error: Failed to parse config \(config)", code: 1) }
            behaviour = yaml["fake_ralph"] as? [String: Any] ?? [:]
            if let robot = yaml["RObot"] as? [String: Any], let t = robot["timeout_seconds"] as? Int { robotTimeout = Double(t) }
            if let configured = yaml["hats"] as? [String: Any], !configured.isEmpty { hats = configured.keys.sorted() }
        }
        func number(_ key: String, _ fallback: Double) -> Double {
            if let value = behaviour[key] as? Double { return value }
            if let value = behaviour[key] as? Int { return Double(value) }
            return fallback
        }

        // Prompt.
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

        if let code = behaviour["fail_with"] as? Int {
            fail("Error: preflight failed (fake_ralph.fail_with)", code: Int32(code))
        }

        // Signals: ralph treats SIGTERM like SIGINT, writes loop.terminate and exits 130.
        if behaviour["ignore_sigterm"] as? Bool != true {
            signal(SIGTERM) { _ in stopRequested.store(true, ordering: .relaxed) }
            signal(SIGINT) { _ in stopRequested.store(true, ordering: .relaxed) }
            // A parent may have started us with these blocked; a handler is useless while they are.
            var handled = sigset_t()
            sigemptyset(&handled)
            sigaddset(&handled, SIGTERM)
            sigaddset(&handled, SIGINT)
            sigprocmask(SIG_UNBLOCK, &handled, nil)
        } else {
            signal(SIGTERM, SIG_IGN)
        }

        func sleepChecking(_ seconds: Double) -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                if stopRequested.load(ordering: .relaxed) { return false }
                Thread.sleep(forTimeInterval: min(0.01, max(0, end.timeIntervalSinceNow)))
            }
            return !stopRequested.load(ordering: .relaxed)
        }

        _ = sleepChecking(number("start_delay", 0))

        // The loop lock: if another loop holds it, run in a worktree, as ralph does with parallel loops.
        var workspace = cwd
        var writer = try RalphRunWriter(workspace: workspace)
        do {
            try writer.begin(prompt: prompt)
        } catch RalphRunWriter.WriterError.lockHeld {
            let name = "fake-\(getpid())"
            workspace = RalphLayout(workspace: cwd).worktree(name)
            writer = try RalphRunWriter(workspace: workspace)
            try writer.begin(prompt: prompt)
            let registry = RalphLayout(workspace: cwd).loopRegistry
            var loops: [[String: Any]] = []
            if let data = FileManager.default.contents(atPath: registry), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                loops = object["loops"] as? [[String: Any]] ?? []
            }
            loops.append(["id": name, "pid": Int(getpid()), "started": Timestamp.now(), "prompt": String(prompt.prefix(100)), "worktree_path": workspace, "workspace": cwd])
            try JSONSerialization.data(withJSONObject: ["loops": loops], options: [.prettyPrinted]).write(to: URL(fileURLWithPath: registry))
        }

        let maxIterations = min(Int(number("iterations", 3)), options.maxIterations ?? Int.max)
        let pace = number("pace", 0.2)
        let outputBytes = Int(number("output_bytes", 1000))
        let question = behaviour["ask"] as? String
        let askAt = Int(number("ask_at", 2))

        try writer.record(topic: "task.start", payload: prompt, iteration: 0, hat: "loop", triggered: hats[0])
        var offset = writer.eventsFileSize
        var iteration = 0

        func interrupted() -> Never {
            try? writer.terminate(reason: "interrupted", status: "Interrupted by signal.", iterations: iteration, exitCode: 130)
            print("ralph: interrupted")
            exit(130)
        }

        /// New human.* lines since the last look.
        func readHumans() -> [RalphEvent] {
            let (lines, end) = writer.lines(after: offset)
            offset = end
            return lines.filter { $0.topic.hasPrefix("human.") }
        }

        let line = "fake ralph agent output line ..............................................\n"
        let filler = String(String(repeating: line, count: outputBytes / line.utf8.count + 1).utf8.prefix(outputBytes))!
        var answer: String?
        for n in 1...max(1, maxIterations) {
            guard sleepChecking(pace) else { interrupted() }
            iteration = n
            FileHandle.standardOutput.write(Data(filler.utf8))
            FileHandle.standardError.write(Data("[iteration \(n)] working\n".utf8))
            let hat = hats[(n - 1) % hats.count]
            let next = hats[n % hats.count]
            var payload = "iteration \(n) done by \(hat)"
            let guidance = readHumans().filter { $0.topic == "human.guidance" }.compactMap(\.payloadText)
            if !guidance.isEmpty { payload += "\nguidance: " + guidance.joined(separator: "; ") }
            if let answer { payload += "\nanswer: " + answer }
            answer = nil
            if let question, n == askAt {
                try writer.record(topic: "human.interact", payload: question, iteration: n, hat: hat)
                offset = writer.eventsFileSize
                let deadline = Date().addingTimeInterval(robotTimeout)
                while answer == nil, Date() < deadline {
                    guard sleepChecking(0.05) else { interrupted() }
                    answer = readHumans().last { $0.topic == "human.response" }?.payloadText
                }
                continue
            }
            try writer.record(topic: "\(hat).done", payload: payload, iteration: n, hat: hat, triggered: next)
        }
        guard sleepChecking(pace / 2) else { interrupted() }
        try writer.record(topic: "LOOP_COMPLETE", payload: "done", iteration: iteration, hat: hats[0])
        try writer.terminate(reason: "completed", status: "All tasks completed successfully.", iterations: iteration, exitCode: 0)
        if workspace != cwd {
            // A finished worktree loop waits in the merge queue of the main repository.
            let line: [String: Any] = ["ts": Timestamp.now(), "loop_id": (workspace as NSString).lastPathComponent, "event": ["type": "queued", "prompt": prompt]]
            let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
            try EventFileAppender.append(line: Array(data), to: RalphLayout(workspace: cwd).mergeQueue, create: true)
        }
        print("ralph: completed after \(iteration) iterations")
        exit(0)
    }
}
