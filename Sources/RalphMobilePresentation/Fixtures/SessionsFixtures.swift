import Foundation
import RalphAPI

/// Sample runs, events, hats and library entries for the sessions, detail, new-run and library screens' `#Preview`
/// blocks — compiled and tested here, so a preview never shows something the real models could not produce.
public enum SessionsFixtures {
    /// The moment every fixture is seen from.
    public static let now = Timestamp.parse("2026-02-05T09:00:00.000Z") ?? Date(timeIntervalSince1970: 1_770_282_000)

    static func at(_ minutesAgo: Double) -> String { Timestamp.format(now.addingTimeInterval(-minutesAgo * 60)) }

    // MARK: - Sessions

    /// A live run at work, a paused one, a finished one and a failed one, newest first.
    public static let sessions: [Session] = [
        Session(
            id: "3fa2c9017b1e4d02", iteration: 7, total: 20, hat: "builder", elapsedSecs: 1260, mode: .live, status: .running,
            startedAt: at(21), lastEventAt: at(0.2), eventCount: 142, taskName: "Add a --json flag to the export command, with tests",
            workspace: ".", path: ".ralph/events-20260205-083900.jsonl", pid: 4242),
        Session(
            id: "9be04f11a2c3d4e5", iteration: 3, total: nil, hat: "reviewer", elapsedSecs: 540, mode: .paused, status: .paused,
            startedAt: at(45), lastEventAt: at(36), eventCount: 37, taskName: "Fix the flaky upload test", workspace: "services/api",
            path: "services/api/.ralph/events-20260205-081500.jsonl", pid: 5151),
        Session(
            id: "c0ffee00deadbeef", iteration: 12, total: 12, hat: "reviewer", elapsedSecs: 2900, mode: .complete, status: .completed,
            startedAt: at(180), lastEventAt: at(131), eventCount: 310, taskName: "Write the README's quick start", workspace: ".",
            path: ".ralph/events-20260205-060000.jsonl", pid: nil),
        Session(
            id: "0badc0de12345678", iteration: 20, total: 20, hat: nil, elapsedSecs: 7300, mode: .complete, status: .failed,
            startedAt: at(60 * 26), lastEventAt: at(60 * 24), eventCount: 802, taskName: nil, workspace: ".worktrees/spike",
            path: ".worktrees/spike/.ralph/events-20260204-070000.jsonl", pid: nil),
    ]

    /// The live run.
    public static var liveSession: Session { sessions[0] }

    // MARK: - Events

    static func event(_ id: Int, _ minutesAgo: Double, _ topic: String, _ payload: String?, hat: String?, iteration: Int, triggered: String? = nil)
        -> JSONValue
    {
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(String(id))), ("topic", .string(topic)), ("ts", .string(at(minutesAgo))), ("iteration", .int(iteration)),
        ]
        if let payload { members.append(("payload", .string(payload))) }
        if let hat { members.append(("hat", .string(hat))) }
        if let triggered { members.append(("triggered", .string(triggered))) }
        members.append(("type", .string("event.published")))
        return .object(JSONObject(members))
    }

    /// The live run's latest events as the detail call returns them (oldest first).
    public static let recentEventsJSON: [JSONValue] = [
        event(135, 4, "build.task", "Add the --json flag and its parser", hat: "planner", iteration: 6, triggered: "builder"),
        event(136, 3.5, "tool.call", "swift build", hat: "builder", iteration: 6),
        event(137, 3, "build.blocked", "tests: fail\nlint: pass\ntypecheck: pass", hat: "builder", iteration: 6),
        event(138, 2, "agent.usage", #"{"usage":{"input_tokens":1200,"output_tokens":300},"total_cost_usd":0.05}"#, hat: "builder", iteration: 7),
        event(139, 1.5, "tool.call", "swift test --filter Export", hat: "builder", iteration: 7),
        event(140, 1, "build.done", "tests: pass\nlint: pass\ntypecheck: pass", hat: "builder", iteration: 7, triggered: "reviewer"),
        event(141, 0.5, "review.note", "The flag is documented; one test name reads badly.", hat: "reviewer", iteration: 7),
        event(142, 0.2, "human.interact", "Should --json also print the run's tokens?", hat: "reviewer", iteration: 7),
    ]

    /// The same events as the stream delivers them, newest first.
    public static var streamEvents: [WorkflowEvent] { recentEventsJSON.compactMap(WorkflowEvent.init(json:)).reversed() }

    // MARK: - Detail

    /// Everything the detail call returns for the live run.
    public static let detail = SessionDetail(
        session: sessions[0], stopReason: nil,
        hatFlow: [
            HatTransition(from: nil, to: "planner", topic: "task.start", at: at(21), iteration: 0, eventId: 1),
            HatTransition(from: "planner", to: "builder", topic: "build.task", at: at(18), iteration: 1, eventId: 9),
            HatTransition(from: "builder", to: "reviewer", topic: "build.done", at: at(12), iteration: 3, eventId: 61),
            HatTransition(from: "reviewer", to: "builder", topic: "review.rejected", at: at(9), iteration: 4, eventId: 80),
            HatTransition(from: "builder", to: "reviewer", topic: "build.done", at: at(1), iteration: 7, eventId: 140),
        ],
        hatTransitions: 5, hatUsage: [HatUsage(hat: "planner", iterations: 1, events: 8), HatUsage(hat: "builder", iterations: 4, events: 96), HatUsage(hat: "reviewer", iterations: 2, events: 38)],
        iterationStats: IterationStats(count: 7, current: 7, total: 20, averageDurationSecs: 172, estimatedRemainingSecs: 2236),
        backpressure: Backpressure(
            tests: true, lint: true, typecheck: true,
            checks: [
                BackpressureCheck(name: "tests", result: "pass", passed: true), BackpressureCheck(name: "lint", result: "pass", passed: true),
                BackpressureCheck(name: "typecheck", result: "pass", passed: true), BackpressureCheck(name: "audit", result: "fail", passed: false),
            ], topic: "build.done", at: at(1), iteration: 7, eventId: 140, blockedCount: 1, doneCount: 3, blockedEvents: 1),
        tokens: TokenMetrics(
            inputTokens: 48_200, outputTokens: 9_600, cacheReadTokens: 120_000, cacheCreationTokens: 8_000, costUsd: 1.92, reports: 6,
            samples: [(900, 1500), (1200, 2100), (1600, 1800), (1500, 2600), (1400, 2000), (1200, 300)].enumerated().map { index, tokens in
                TokenSample(at: at(Double(20 - 3 * index)), inputTokens: tokens.0, outputTokens: tokens.1, eventId: 10 + 20 * index)
            }),
        recentToolCalls: [], recentEvents: recentEventsJSON,
        pendingQuestion: PendingQuestion(
            id: "3fa2c9017b1e4d02-142", questionText: "Should --json also print the run's tokens?", sessionId: "3fa2c9017b1e4d02", askedAt: at(0.2),
            timeoutAt: Timestamp.format(now.addingTimeInterval(288)), timeoutEstimated: true, iteration: 7, hat: "reviewer", eventId: 142),
        lineCount: 142, malformedLines: 0)

    /// The iterations call for the live run.
    public static let iterations: [IterationItem] = (1...7).map { n in
        IterationItem(
            number: n, hat: n == 1 ? "planner" : n == 4 || n == 7 ? "reviewer" : "builder", startedAt: at(Double(21 - 3 * n)),
            durationSecs: n == 7 ? nil : 150 + 7 * n, eventCount: 14 + n)
    }

    // MARK: - Library

    public static let hats: [HatItem] = [
        HatItem(
            name: "planner", id: "planner", description: "Breaks the task into steps.", emoji: "📋", color: HatPalette.color(for: "planner"),
            triggers: ["task.start", "review.rejected"], publishes: ["build.task"], sources: ["ralph.yml"]),
        HatItem(
            name: "builder", id: "builder", description: "Writes the code and runs the checks.", emoji: "🏗️", color: HatPalette.color(for: "builder"),
            triggers: ["build.task"], publishes: ["build.done", "build.blocked"], sources: ["ralph.yml", "presets/feature.yml"]),
        HatItem(
            name: "reviewer", id: "reviewer", description: "Reads the change and approves or rejects it.", emoji: "👀",
            color: HatPalette.color(for: "reviewer"), triggers: ["build.done"], publishes: ["review.approved", "review.rejected"],
            sources: ["ralph.yml"]),
    ]

    public static let configs: [ConfigItem] = [
        ConfigItem(path: "ralph.yml", name: "ralph", description: "The project's loop: plan, build, review"),
        ConfigItem(path: "presets/feature.yml", name: "feature", description: "A feature with tests"),
        ConfigItem(path: "presets/docs.yml", name: "docs", description: ""),
    ]

    public static let presets: [PresetItem] = [
        PresetItem(name: "feature", path: "presets/feature.yml", description: "A feature with tests"),
        PresetItem(name: "docs", path: "presets/docs.yml", description: ""),
    ]

    public static let prompts: [PromptItem] = [
        PromptItem(path: "prompts/json-flag.md", name: "json-flag", preview: "# Add a --json flag to the export comm…"),
        PromptItem(path: "prompts/docs/quick-start.md", name: "quick-start", preview: "Write the README's quick start"),
    ]

    public static let skills: [SkillItem] = [
        SkillItem(
            name: "swift-testing", description: "Write tests with Swift Testing", tags: ["swift", "tests"], hats: ["builder"], backends: [],
            autoInject: true, source: "file", path: ".ralph/skills/swift-testing/SKILL.md")
    ]

    public static let configFile = FileContentResponse(
        path: "presets/feature.yml",
        content: "# A feature with tests\nevent_loop:\n  max_iterations: 20\nhats:\n  builder:\n    triggers: [build.task]\n    publishes: [build.done]\n",
        contentType: "yaml")

    public static let promptFile = FileContentResponse(
        path: "prompts/json-flag.md", content: "# Add a --json flag to the export command\n\nWith tests, and the README updated.\n", contentType: "markdown")
}
