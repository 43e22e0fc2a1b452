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

    var stopped: Bool { stopFlag.withLock { $0 } }

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
        var runNumber = 0
        while !stopped {
            let task = DemoTask.all[runNumber % DemoTask.all.count]
            runNumber += 1
            do {
                try performRun(task)
            } catch {
                FileHandle.standardError.write(Data("demo: \(error)\n".utf8))
                _ = pause(5)
            }
            if let limit = options.runLimit, runNumber >= limit { break }
            if !pause(options.restBetweenRuns) { break }
        }
    }

    /// One run. Throws only on I/O errors.
    func performRun(_ task: DemoTask) throws {
        let writer = try RalphRunWriter(workspace: options.workspace)
        try writer.begin(prompt: task.prompt)
        var iteration = 0
        var guidance: [String] = []
        var offset = 0

        /// Picks up human.guidance written since the last look (ralph injects it into the next iteration).
        func collectGuidance() {
            let (lines, end) = writer.lines(after: offset)
            offset = end
            for event in lines where event.topic == "human.guidance" {
                if let text = event.payloadText { guidance.append(text) }
            }
        }
        func guidanceNote() -> String {
            guard !guidance.isEmpty else { return "" }
            defer { guidance.removeAll() }
            let joined = guidance.joined(separator: "; ")
            writer.appendScratchpad("\n## Human guidance\n\(joined)\n")
            return "\n\nApplied human guidance: \(joined)"
        }
        func interrupted() throws {
            try writer.terminate(reason: "interrupted", status: "Interrupted by signal.", iterations: iteration, exitCode: 130)
        }

        try writer.record(topic: "task.start", payload: task.prompt, iteration: 0, hat: "loop", triggered: "planner")
        offset = writer.eventsFileSize

        // Iteration 1: planner breaks the task down.
        guard step() else { return try interrupted() }
        collectGuidance()
        iteration = 1
        writer.appendScratchpad("# Scratchpad\n\n## Plan\n" + task.plan.enumerated().map { "- [ ] \($0.offset + 1). \($0.element)" }.joined(separator: "\n") + "\n")
        try writer.record(
            topic: "build.task", payload: "Task 1: \(task.plan[0])\n\nAcceptance: \(task.acceptance)" + guidanceNote(), iteration: iteration,
            hat: "planner", triggered: "builder"
        )

        // Iteration 2: builder, backpressure blocks (tests fail).
        guard step(1.5) else { return try interrupted() }
        collectGuidance()
        iteration = 2
        try writer.record(
            topic: "build.blocked", payload: "\(task.firstAttempt)\n\ntests: fail (2 failing)\nlint: pass\ntypecheck: pass" + guidanceNote(),
            iteration: iteration, hat: "builder", triggered: "builder", blockedCount: 1
        )

        // Iteration 3: builder fixes it.
        guard step(1.5) else { return try interrupted() }
        collectGuidance()
        iteration = 3
        try writer.record(
            topic: "build.done", payload: "\(task.fix)\n\ntests: pass\nlint: pass\ntypecheck: pass" + guidanceNote(), iteration: iteration,
            hat: "builder", triggered: "reviewer"
        )

        // Iteration 4: reviewer asks the human, and waits as ralph's RObot does.
        guard step() else { return try interrupted() }
        collectGuidance()
        iteration = 4
        try writer.record(topic: "human.interact", payload: task.question, iteration: iteration, hat: "reviewer")
        offset = writer.eventsFileSize
        var answer: String?
        let deadline = Date().addingTimeInterval(options.questionTimeout)
        while answer == nil, Date() < deadline {
            guard pause(0.25) else { return try interrupted() }
            let (lines, end) = writer.lines(after: offset)
            offset = end
            for event in lines {
                if event.topic == "human.response" { answer = event.payloadText ?? "" }
                if event.topic == "human.guidance", let text = event.payloadText { guidance.append(text) }
            }
        }
        let decision = answer.map { "Human answered: \($0)" } ?? "No answer within \(Int(options.questionTimeout))s; going with: \(task.defaultAnswer)"
        try writer.record(
            topic: "review.changes_requested", payload: "\(decision)\n\n\(task.reviewNote)" + guidanceNote(), iteration: iteration,
            hat: "reviewer", triggered: "builder"
        )

        // Iteration 5: builder applies the review.
        guard step(1.5) else { return try interrupted() }
        collectGuidance()
        iteration = 5
        try writer.record(
            topic: "build.done", payload: "\(task.secondBuild)\n\ntests: pass\nlint: pass\ntypecheck: pass" + guidanceNote(), iteration: iteration,
            hat: "builder", triggered: "reviewer"
        )

        // Iteration 6: reviewer approves.
        guard step() else { return try interrupted() }
        collectGuidance()
        iteration = 6
        try writer.record(topic: "review.approved", payload: task.approval + guidanceNote(), iteration: iteration, hat: "reviewer", triggered: "planner")

        // Iteration 7: planner confirms everything is done.
        guard step() else { return try interrupted() }
        iteration = 7
        try writer.record(topic: "LOOP_COMPLETE", payload: "All tasks complete: \(task.plan.joined(separator: "; ")).", iteration: iteration, hat: "planner")
        guard step(0.3) else { return try interrupted() }
        try writer.terminate(reason: "completed", status: "All tasks completed successfully.", iterations: iteration, exitCode: 0)
    }

    /// Creates the demo workspace with a ralph.yml and a PROMPT.md, like `ralph init` would.
    public static func prepareWorkspace(_ workspace: String) throws {
        try FileManager.default.createDirectory(atPath: workspace + "/.ralph/agent", withIntermediateDirectories: true)
        let config = workspace + "/ralph.yml"
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
struct DemoTask {
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
