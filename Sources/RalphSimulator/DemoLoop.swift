import Foundation
import RalphAPI
import RalphFiles
import Synchronization

/// The `--demo` simulator: a realistic ralph loop written at a human pace into a demo workspace.
///
/// It writes the files a real `ralph run` writes (through ``RalphRunWriter``) and nothing else, so what the server
/// shows goes through the same discovery, tailing and liveness path as a real run. Each run goes planner → builder →
/// reviewer, with a blocked build (failing tests), a `human.interact` question it waits for (answer it with a
/// `human.response` line, e.g. from the app), `human.guidance` taken into the next iteration, and a `loop.terminate`
/// at the end. Then it rests and starts the next run.
public final class DemoLoop: Sendable {
    public struct Options: Sendable {
        /// Workspace the demo runs in (created if missing).
        public var workspace: String
        /// Seconds between events (each step varies around it).
        public var pace: Double = 4
        /// Seconds to wait for an answer to the question.
        public var questionTimeout: Double = 60
        /// Seconds between runs.
        public var restBetweenRuns: Double = 20
        /// Stop after this many runs (nil: until stopped).
        public var runLimit: Int?
        /// When set, the loop stops as soon as this is no longer its parent process (the server that started it died).
        public var parentPID: Int32?

        public init(workspace: String) {
            self.workspace = workspace
        }
    }

    let options: Options
    private let stopFlag = Mutex(false)
    private let finished = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init(options: Options) {
        self.options = options
    }

    /// Starts the loop on its own thread.
    public func start() throws {
        try Self.prepareWorkspace(options.workspace)
        let thread = Thread { [self] in
            runLoop()
            let waiters = finished.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.done = true
                defer { state.waiters = [] }
                return state.waiters
            }
            waiters.forEach { $0.resume() }
        }
        thread.name = "ralph-mobile.demo"
        thread.start()
    }

    /// Asks the loop to stop (the current run ends with `loop.terminate` reason `interrupted`).
    public func stop() { stopFlag.withLock { $0 = true } }

    /// Waits until the loop thread has finished.
    public func waitUntilFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = finished.withLock { state -> Bool in
                if state.done { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    var stopped: Bool {
        if stopFlag.withLock({ $0 }) { return true }
        if let parent = options.parentPID, getppid() != parent { return true }
        return false
    }

    /// Sleeps in small steps; false if asked to stop meanwhile.
    func pause(_ seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if stopped { return false }
            Thread.sleep(forTimeInterval: min(0.05, max(0, end.timeIntervalSinceNow)))
        }
        return !stopped
    }

    func step(_ factor: Double = 1) -> Bool {
        pause(options.pace * factor * Double.random(in: 0.7...1.3))
    }

    func runLoop() {
        // A restarted demo goes on with the next task rather than repeating the first.
        var runNumber = Self.runCount(in: options.workspace)
        var runsDone = 0
        while !stopped {
            let task = DemoTask.all[runNumber % DemoTask.all.count]
            runNumber += 1
            do {
                try performRun(task)
            } catch {
                FileHandle.standardError.write(Data("demo: \(error)\n".utf8))
                _ = pause(5)
            }
            runsDone += 1
            if let limit = options.runLimit, runsDone >= limit { break }
            if !pause(options.restBetweenRuns) { break }
        }
    }

    /// One iteration of the script: the record its hat writes at the end of it.
    struct Step: Sendable {
        var hat: String
        var topic: String
        var triggered: String?
        var blockedCount: Int?
        /// Multiplies the pace (builds take longer than reviews).
        var pace: Double = 1
        /// Wait for a `human.response` after writing this record (ralph's RObot), then continue with the next step.
        var asksHuman = false
        /// False when the record belongs to the same iteration as the previous one (the reviewer publishing after the
        /// human answered).
        var newIteration = true
        var payload: @Sendable (_ task: DemoTask, _ answer: String?) -> String
    }

    /// The script: planner → builder (blocked by failing tests, then fixed) → reviewer asks the human → builder → reviewer
    /// approves → planner completes.
    static let script: [Step] = [
        Step(hat: "planner", topic: "build.task", triggered: "builder") { task, _ in "Task 1: \(task.plan[0])\n\nAcceptance: \(task.acceptance)" },
        Step(hat: "builder", topic: "build.blocked", triggered: "builder", blockedCount: 1, pace: 1.5) { task, _ in
            "\(task.firstAttempt)\n\ntests: fail (2 failing)\nlint: pass\ntypecheck: pass"
        },
        Step(hat: "builder", topic: "build.done", triggered: "reviewer", pace: 1.5) { task, _ in "\(task.fix)\n\ntests: pass\nlint: pass\ntypecheck: pass" },
        Step(hat: "reviewer", topic: "human.interact", asksHuman: true) { task, _ in task.question },
        Step(hat: "reviewer", topic: "review.changes_requested", triggered: "builder", pace: 0.3, newIteration: false) { task, answer in
            let decision = answer.map { "Human answered: \($0)" } ?? "No answer in time; going with: \(task.defaultAnswer)"
            return "\(decision)\n\n\(task.reviewNote)"
        },
        Step(hat: "builder", topic: "build.done", triggered: "reviewer", pace: 1.5) { task, _ in "\(task.secondBuild)\n\ntests: pass\nlint: pass\ntypecheck: pass" },
        Step(hat: "reviewer", topic: "review.approved", triggered: "planner") { task, _ in task.approval },
        Step(hat: "planner", topic: "LOOP_COMPLETE") { task, _ in "All tasks complete: \(task.plan.joined(separator: "; "))." },
    ]

    /// One run. Throws only on I/O errors.
    func performRun(_ task: DemoTask) throws {
        let writer = try RalphRunWriter(workspace: options.workspace)
        try writer.begin(prompt: task.prompt)
        try writer.record(topic: "task.start", payload: task.prompt, iteration: 0, hat: "loop", triggered: "planner")
        writer.appendScratchpad("# Scratchpad\n\n## Plan\n" + task.plan.enumerated().map { "- [ ] \($0.offset + 1). \($0.element)" }.joined(separator: "\n") + "\n")
        var inbox = Inbox(offset: writer.eventsFileSize)
        var iteration = 0
        var answer: String?
        for step in Self.script {
            guard self.step(step.pace) else {
                return try writer.terminate(reason: "interrupted", status: "Interrupted by signal.", iterations: iteration, exitCode: 130)
            }
            // ralph's graceful stop: `.ralph/stop-requested`, consumed at the iteration boundary.
            if step.newIteration, unlink(writer.layout.stopRequested) == 0 {
                return try writer.terminate(reason: "stopped", status: "Stopped by request.", iterations: iteration, exitCode: 1)
            }
            if step.newIteration { iteration += 1 }
            inbox.read(writer)
            var payload = step.payload(task, answer)
            if !inbox.guidance.isEmpty {
                // ralph injects human.guidance into the next iteration's prompt and keeps it in the scratchpad.
                let joined = inbox.guidance.joined(separator: "; ")
                inbox.guidance.removeAll()
                writer.appendScratchpad("\n## Human guidance\n\(joined)\n")
                payload += "\n\nApplied human guidance: \(joined)"
            }
            try writer.record(topic: step.topic, payload: payload, iteration: iteration, hat: step.hat, triggered: step.triggered, blockedCount: step.blockedCount)
            if step.asksHuman {
                // Only an answer written after the question counts.
                inbox.answer = nil
                inbox.skip(to: writer.eventsFileSize)
                let deadline = Date().addingTimeInterval(options.questionTimeout)
                while inbox.answer == nil, Date() < deadline {
                    guard pause(0.25) else {
                        return try writer.terminate(reason: "interrupted", status: "Interrupted by signal.", iterations: iteration, exitCode: 130)
                    }
                    inbox.read(writer)
                }
                answer = inbox.answer
            }
        }
        guard step(0.3) else { return try writer.terminate(reason: "interrupted", status: "Interrupted by signal.", iterations: iteration, exitCode: 130) }
        try writer.terminate(reason: "completed", status: "All tasks completed successfully.", iterations: iteration, exitCode: 0)
    }

    /// What humans wrote into the run since the last look: guidance for the next iteration, an answer to the question.
    struct Inbox {
        var offset: Int
        var guidance: [String] = []
        var answer: String?

        mutating func read(_ writer: RalphRunWriter) {
            let (lines, end) = writer.lines(after: offset)
            offset = end
            for event in lines {
                if event.topic == "human.guidance", let text = event.payloadText { guidance.append(text) }
                if event.topic == "human.response" { answer = event.payloadText ?? "" }
            }
        }

        /// Ignores lines up to `offset` (our own records).
        mutating func skip(to offset: Int) { self.offset = offset }
    }

    /// How many runs the workspace has seen (its `.ralph/events-*.jsonl` files).
    static func runCount(in workspace: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: RalphLayout(workspace: workspace).stateDirectory)) ?? []
        return names.filter { $0.hasPrefix(RalphLayout.runFilePrefix) && $0.hasSuffix(RalphLayout.runFileSuffix) }.count
    }

    /// Creates the demo workspace with a ralph.yml and a PROMPT.md, like `ralph init` would.
    public static func prepareWorkspace(_ workspace: String) throws {
        let layout = RalphLayout(workspace: workspace)
        try FileManager.default.createDirectory(atPath: layout.agentDirectory, withIntermediateDirectories: true)
        let config = layout.configFiles[0]
        if !FileManager.default.fileExists(atPath: config) {
            try Data(DemoTask.config.utf8).write(to: URL(fileURLWithPath: config))
        }
        let prompt = workspace + "/PROMPT.md"
        if !FileManager.default.fileExists(atPath: prompt) {
            try Data("# Demo\n\n\(DemoTask.all[0].prompt)\n".utf8).write(to: URL(fileURLWithPath: prompt))
        }
    }
}

/// The demo's scripted tasks.
struct DemoTask: Sendable {
    var prompt: String
    var plan: [String]
    var acceptance: String
    var firstAttempt: String
    var fix: String
    var question: String
    var defaultAnswer: String
    var reviewNote: String
    var secondBuild: String
    var approval: String

    static let all: [DemoTask] = [
        DemoTask(
            prompt: "Add rate limiting to the public API\n\nLimit each client to 100 requests per minute and return 429 with Retry-After.",
            plan: ["token-bucket limiter middleware", "429 responses with Retry-After", "per-client configuration"],
            acceptance: "a client over the limit gets 429 with a Retry-After header; others are unaffected",
            firstAttempt: "Added RateLimiter middleware with an in-memory token bucket per client.",
            fix: "Fixed refill arithmetic (tokens were refilled per request, not per second) and the Retry-After rounding.",
            question: "Should the limit apply per API key or per client IP address?",
            defaultAnswer: "per API key, falling back to the IP address for anonymous requests",
            reviewNote: "Limiter keys must follow that decision; add a test for anonymous clients.",
            secondBuild: "Limiter keyed as decided; anonymous clients covered by a new test.",
            approval: "Approved: limiter, 429 handling and configuration look right; tests cover the edge cases."
        ),
        DemoTask(
            prompt: "Make CSV export stream instead of loading everything in memory\n\nExports of 1M rows currently use 2 GB.",
            plan: ["streaming CSV writer", "chunked HTTP response", "memory regression test"],
            acceptance: "exporting 1M rows stays under 100 MB of memory",
            firstAttempt: "Replaced the buffered exporter with a row iterator feeding a chunked response.",
            fix: "Escaped embedded quotes and newlines per RFC 4180; the two failing fixtures pass now.",
            question: "Keep the old buffered endpoint for one release, or remove it now?",
            defaultAnswer: "keep it for one release behind a deprecation header",
            reviewNote: "Handle that endpoint accordingly and note it in the changelog.",
            secondBuild: "Old endpoint handled as decided; changelog updated; memory test at 41 MB for 1M rows.",
            approval: "Approved: streaming export is correct and the memory test guards it."
        ),
    ]

    static let config = """
        # Ralph Mobile demo workspace (written by ralph-mobile-server --demo)
        event_loop:
          prompt_file: PROMPT.md
          completion_promise: LOOP_COMPLETE
          max_iterations: 12
        cli:
          backend: claude
        RObot:
          enabled: true
          timeout_seconds: 60
        hats:
          planner:
            name: "📋 Planner"
            description: Breaks the task into steps and confirms completion.
            triggers: [task.start, review.approved]
            publishes: [build.task, LOOP_COMPLETE]
          builder:
            name: "🏗️ Builder"
            description: Implements one step with tests; backpressure requires tests, lint and typecheck to pass.
            triggers: [build.task, build.blocked, review.changes_requested]
            publishes: [build.done, build.blocked]
          reviewer:
            name: "👀 Reviewer"
            description: Reviews each build and asks the human when a decision is needed.
            triggers: [build.done]
            publishes: [review.approved, review.changes_requested, human.interact]

        """
}
