import Foundation
import RalphAPI
import RalphFiles
import RalphSimulator

#if canImport(Glibc)
import Glibc
#endif

/// One `ralph run`: the loop lock (or a worktree when it is taken), the events file, iterations, and how it ends.
///
/// Each behaviour of ralph 2.10 the double models lives in an extension of its own (`FakeLoop+….swift`) and is called
/// from the places marked here: ``atBoundary()`` before each iteration, ``record(_:_:iteration:hat:triggered:)`` for
/// every line, ``finish(_:)`` for the end.
final class FakeLoop {
    let options: Options
    let behaviour: Behaviour
    let prompt: String
    /// Where `ralph run` was started.
    let cwd: String
    /// The loop's own root: `cwd`, or its worktree.
    var workspace: String
    var writer: RalphRunWriter
    var iteration = 0
    /// How far the events file was read for `human.*` lines.
    var offset = 0
    let maxIterations: Int
    let pace: Double
    /// Guidance acks, waves, RObot web mode (FakeLoop+Signals / +RobotWeb).
    var signals = SignalState()

    init(options: Options, behaviour: Behaviour, prompt: String, cwd: String) throws {
        self.options = options
        self.behaviour = behaviour
        self.prompt = prompt
        self.cwd = cwd
        workspace = cwd
        writer = try RalphRunWriter(workspace: cwd)
        maxIterations = min(Int(behaviour.number("iterations", 3)), options.maxIterations ?? Int.max)
        pace = behaviour.number("pace", 0.2)
    }

    var layout: RalphLayout { RalphLayout(workspace: workspace) }
    var hats: [String] { behaviour.hats }
    /// Whether this loop runs in a worktree of `cwd`.
    var isWorktree: Bool { workspace != cwd }
    /// ralph's loop id: the worktree's name, or `primary-<the events file's timestamp>`.
    var loopID: String {
        if isWorktree { return (workspace as NSString).lastPathComponent }
        let name = (writer.eventsFile as NSString).lastPathComponent
        return "primary-" + name.replacingOccurrences(of: "events-", with: "").replacingOccurrences(of: ".jsonl", with: "")
    }

    /// Takes the loop lock, or runs in a worktree registered in `.ralph/loops.json` when another loop holds it.
    func begin() throws {
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
            loops.append([
                "id": name, "pid": Int(getpid()), "started": Timestamp.now(), "prompt": String(prompt.prefix(100)), "worktree_path": workspace,
                "workspace": cwd,
            ])
            try JSONSerialization.data(withJSONObject: ["loops": loops], options: [.prettyPrinted]).write(to: URL(fileURLWithPath: registry))
        }
        try record("task.start", prompt, iteration: 0, hat: "loop", triggered: hats[0])
        offset = writer.eventsFileSize
    }

    /// Appends an orchestrator record (every line the loop writes goes through here).
    func record(_ topic: String, _ payload: String, iteration: Int, hat: String, triggered: String? = nil) throws {
        try whileWorkspaceExists { try writer.record(topic: topic, payload: payload, iteration: iteration, hat: hat, triggered: triggered) }
        try afterRecord(topic, payload, iteration: iteration, hat: hat)
        rpcRecorded(topic, payload, iteration: iteration, hat: hat)
    }

    /// New `human.*` lines since the last look.
    func readHumans() -> [RalphEvent] {
        let (lines, end) = writer.lines(after: offset)
        offset = end
        return lines.filter { $0.topic.hasPrefix("human.") }
    }

    /// Sleeps, returning false at once when a signal asked the loop to stop.
    func sleepChecking(_ seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if stopRequested.load(ordering: .relaxed) { return false }
            Thread.sleep(forTimeInterval: min(0.01, max(0, end.timeIntervalSinceNow)))
        }
        return !stopRequested.load(ordering: .relaxed)
    }

    /// How the loop ends: its `loop.terminate` reason, the status line, the exit code.
    struct Ending {
        var reason: String
        var status: String
        var exitCode: Int32
    }

    static let interrupted = Ending(reason: "interrupted", status: "Interrupted by signal.", exitCode: 130)

    /// Checked before each iteration: a reason to end now, or nil to go on.
    func atBoundary() throws -> Ending? {
        if let ending = try controlAtBoundary() { return ending }
        if let ending = staleAtBoundary() { return ending }
        try signalsAtBoundary()
        if let ending = rpcIterationBegins() { return ending }
        try runWaveIfDue(iteration: iteration + 1)
        return nil
    }

    /// The iterations, then LOOP_COMPLETE; returns how the loop ended.
    func run() throws -> Ending {
        let outputBytes = Int(behaviour.number("output_bytes", 1000))
        let question = behaviour.string("ask")
        let askAt = Int(behaviour.number("ask_at", 2))
        let line = "fake ralph agent output line ..............................................\n"
        let filler = String(String(repeating: line, count: outputBytes / line.utf8.count + 1).utf8.prefix(outputBytes))!
        var answer: String?
        for n in 1...max(1, maxIterations) {
            guard sleepChecking(pace) else { return Self.interrupted }
            if let ending = try atBoundary() { return ending }
            iteration = n
            writeOutput(filler)
            FileHandle.standardError.write(Data("[iteration \(n)] working\n".utf8))
            let hat = hatFor(n)
            let next = hats[n % hats.count]
            var payload = "iteration \(n) done by \(hat)"
            let guidance = readHumans().filter { $0.topic == "human.guidance" }.compactMap(\.payloadText)
            if !guidance.isEmpty { payload += "\nguidance: " + guidance.joined(separator: "; ") }
            payload += interjections()
            if let answer { payload += "\nanswer: " + answer }
            answer = nil
            if let question, n == askAt {
                try record("human.interact", question, iteration: n, hat: hat)
                offset = writer.eventsFileSize
                let deadline = Date().addingTimeInterval(behaviour.robotTimeout)
                while answer == nil, Date() < deadline {
                    guard sleepChecking(0.05) else { return Self.interrupted }
                    answer = robotWebMode ? try webAnswer() : readHumans().last { $0.topic == "human.response" }?.payloadText
                }
                continue
            }
            try recordIteration(n, hat: hat, payload: payload, next: next)
        }
        guard sleepChecking(pace / 2) else { return Self.interrupted }
        try settleGuidanceBeforeCompletion()
        try record("LOOP_COMPLETE", "done", iteration: iteration, hat: hats[0])
        return Ending(reason: "completed", status: "All tasks completed successfully.", exitCode: 0)
    }

    /// Writes `loop.terminate` and what follows a loop's end; exits with the ending's code.
    func finish(_ ending: Ending) -> Never {
        let ending = rpcFinishing(ending)
        do {
            try writer.terminate(reason: ending.reason, status: ending.status, iterations: iteration, exitCode: Int(ending.exitCode))
            if isWorktree, ending.reason == "completed" {
                // A finished worktree loop waits in the merge queue of the main repository.
                let line: [String: Any] = ["ts": Timestamp.now(), "loop_id": loopID, "event": ["type": "queued", "prompt": prompt]]
                let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
                try EventFileAppender.append(line: Array(data), to: RalphLayout(workspace: cwd).mergeQueue, create: true)
            }
        } catch {
            fail("Error: could not record the end of the loop: \(error)", code: 1)
        }
        writeOutput(ending.reason == "interrupted" ? "ralph: interrupted\n" : "ralph: \(ending.reason) after \(iteration) iterations\n")
        exit(ending.exitCode)
    }
}
