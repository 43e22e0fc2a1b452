import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

// MARK: - Line builders

/// 2026-02-05T10:00:00Z
private let base = 1_770_285_600.0

private func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

/// ralph's timestamp `s` seconds after 2026-02-05T10:00:00Z, in its nanosecond `+00:00` form.
private func t(_ s: Int) -> String {
    "2026-02-05T\(pad(10 + s / 3600)):\(pad(s / 60 % 60)):\(pad(s % 60)).000000000+00:00"
}

/// The contract form (`Timestamp.format`) of the same instant.
private func z(_ s: Int) -> String {
    "2026-02-05T\(pad(10 + s / 3600)):\(pad(s / 60 % 60)):\(pad(s % 60)).000Z"
}

/// An orchestrator record, fields in ralph's order.
private func record(
    _ ts: String?, _ iteration: Int, _ hat: String, _ topic: String, triggered: String? = nil, payload: JSONValue? = "…",
    extra: [(key: String, value: JSONValue)] = []
) -> String {
    var members: [(key: String, value: JSONValue)] = []
    if let ts { members.append(("ts", .string(ts))) }
    members.append(("iteration", .int(iteration)))
    members.append(("hat", .string(hat)))
    members.append(("topic", .string(topic)))
    if let triggered { members.append(("triggered", .string(triggered))) }
    if let payload { members.append(("payload", payload)) }
    return JSONWriter.string(.object(JSONObject(members + extra)))
}

/// A `ralph emit` style line: no iteration, no hat.
private func emit(_ topic: String, _ ts: String?, payload: JSONValue? = "…", extra: [(key: String, value: JSONValue)] = []) -> String {
    var members: [(key: String, value: JSONValue)] = []
    if let payload { members.append(("payload", payload)) }
    members.append(("topic", .string(topic)))
    if let ts { members.append(("ts", .string(ts))) }
    return JSONWriter.string(.object(JSONObject(members + extra)))
}

/// Folds lines in order; ids are 1-based line numbers.
private func fold(_ lines: [String]) -> RunState {
    var state = RunState()
    for (index, line) in lines.enumerated() {
        state.apply(EventLineDecoder.decode(line, id: index + 1))
    }
    return state
}

/// The states after each prefix of `lines`.
private func folds(_ lines: [String]) -> [RunState] {
    var state = RunState()
    var states: [RunState] = []
    for (index, line) in lines.enumerated() {
        state.apply(EventLineDecoder.decode(line, id: index + 1))
        states.append(state)
    }
    return states
}

// MARK: - Tests

@Suite("Run state fold")
struct RunStateTests {
    // MARK: Iteration and hat

    @Test("iteration and hat come from orchestrator records; agent lines change neither")
    func iterationAndHat() {
        let states = folds([
            record(t(0), 0, "loop", "task.start", triggered: "planner"),
            record(t(30), 1, "planner", "plan.ready", triggered: "builder"),
            emit("build.progress", t(40), extra: [("triggered", "reviewer")]),
            record(t(60), 2, "builder", "build.done", triggered: "reviewer"),
            record(t(70), 2, "loop", "event.orphaned"),
        ])
        #expect(states.map(\.iteration) == [0, 1, 1, 2, 2])
        #expect(states.map(\.hat) == ["planner", "builder", "builder", "reviewer", "reviewer"])
    }

    @Test("a record without triggered hands the work to its own hat unless that hat is loop")
    func recordWithoutTriggered() {
        let states = folds([
            record(t(0), 0, "loop", "task.start", triggered: "planner"),
            record(t(10), 1, "loop", "event.orphaned"),
            record(t(20), 1, "builder", "build.progress"),
            record(t(30), 1, "", "odd.record"),
        ])
        #expect(states.map(\.hat) == ["planner", "planner", "builder", "builder"])
    }

    @Test("the state starts empty")
    func initialState() {
        let state = RunState()
        #expect(state.lineCount == 0)
        #expect(state.eventCount == 0)
        #expect(state.iteration == 0)
        #expect(state.hat == nil)
        #expect(state.firstEventAt == nil)
        #expect(state.taskName == nil)
        #expect(state.termination == nil)
        #expect(state.tokens == nil)
        #expect(state.backpressure == nil)
        #expect(state.pendingQuestion == nil)
        #expect(state.iterationItems().isEmpty)
        #expect(state.iterationStats(total: 10, live: true) == IterationStats(count: 0, current: 0, total: 10, averageDurationSecs: nil, estimatedRemainingSecs: nil))
    }

    // MARK: Counters and times

    @Test("lineCount counts every line, eventCount only events, malformedCount only malformed lines")
    func counters() {
        let state = fold([
            record(t(0), 0, "loop", "task.start", triggered: "planner"),
            "",
            "   \r",
            "not json",
            #"{"payload":1}"#,
            emit("x", t(1)),
            "[1,2]",
        ])
        #expect(state.lineCount == 7)
        #expect(state.eventCount == 2)
        #expect(state.malformedCount == 3)
    }

    @Test("firstEventAt and lastEventAt are the first and last written ts, as written")
    func firstAndLastEvent() throws {
        let state = fold([
            emit("no.ts", nil),
            emit("a", t(5)),
            "garbage",
            emit("b", "2026-02-05T10:00:09Z"),
            emit("no.ts.again", nil),
        ])
        #expect(state.firstEventAt == t(5))
        #expect(state.lastEventAt == "2026-02-05T10:00:09Z")
        #expect(state.firstEventDate == Date(timeIntervalSince1970: base + 5))
        #expect(state.lastEventDate == Date(timeIntervalSince1970: base + 9))
    }

    @Test("taskName is the first non-empty line of the first payload, trimmed")
    func taskName() {
        let state = fold([
            emit("empty", t(0), payload: nil),
            record(t(1), 0, "loop", "task.start", triggered: "planner", payload: "  \n   Build the CLI  \nwith tests"),
            emit("later", t(2), payload: "Something else"),
        ])
        #expect(state.taskName == "Build the CLI")
    }

    @Test("a very long first line is cut to 200 characters ending with an ellipsis")
    func longTaskName() throws {
        let long = String(repeating: "x", count: 500)
        let name = try #require(fold([emit("task.start", t(0), payload: .string(long))]).taskName)
        #expect(name.count == 200)
        #expect(name.hasSuffix("…"))
        #expect(name.hasPrefix(String(repeating: "x", count: 199)))
    }

    @Test("an object payload gives its compact JSON as the task name")
    func objectTaskName() {
        #expect(fold([emit("task.start", t(0), payload: ["goal": "ship"])]).taskName == #"{"goal":"ship"}"#)
    }

    // MARK: Hat flow

    @Test("hat flow records each change with from, to, topic, time, iteration and event id")
    func hatFlow() {
        let state = fold([
            record(t(0), 0, "loop", "task.start", triggered: "planner"),
            record(t(30), 1, "planner", "plan.ready", triggered: "builder"),
            emit("build.progress", t(40)),
            record(t(50), 2, "builder", "build.task", triggered: "builder"),
            record(t(60), 2, "builder", "build.done", triggered: "reviewer"),
        ])
        #expect(
            state.hatFlow == [
                HatTransition(from: nil, to: "planner", topic: "task.start", at: z(0), iteration: 0, eventId: 1),
                HatTransition(from: "planner", to: "builder", topic: "plan.ready", at: z(30), iteration: 1, eventId: 2),
                HatTransition(from: "builder", to: "reviewer", topic: "build.done", at: z(60), iteration: 2, eventId: 5),
            ]
        )
        #expect(state.hatTransitionCount == 3)
    }

    @Test("hat flow keeps the latest 200 transitions while the count keeps counting")
    func hatFlowCap() throws {
        let lines = (0..<250).map { i in record(t(i), 1, "loop", "x", triggered: i % 2 == 0 ? "a" : "b") }
        let state = fold(lines)
        #expect(state.hatTransitionCount == 250)
        #expect(state.hatFlow.count == RunState.hatFlowLimit)
        #expect(RunState.hatFlowLimit == 200)
        let first = try #require(state.hatFlow.first)
        #expect(first.eventId == 51)
        #expect(first.from == "b")
        #expect(first.to == "a")
        #expect(state.hatFlow.last?.eventId == 250)
        #expect(state.hatFlow.map(\.eventId) == Array(51...250))
    }

    // MARK: Iterations

    private static let iterationLines = [
        record(t(0), 0, "loop", "task.start", triggered: "planner"),
        record(t(30), 1, "planner", "plan.step"),
        record(t(60), 1, "planner", "plan.ready", triggered: "builder"),
        record(t(120), 2, "builder", "build.done", triggered: "reviewer"),
        emit("build.note", t(150)),
        record(t(300), 3, "reviewer", "review.approved"),
    ]

    @Test("iterations start at the previous record, end at their last record and count their records")
    func iterations() throws {
        let state = fold(Self.iterationLines)
        #expect(state.iterations.map(\.number) == [1, 2, 3])
        #expect(state.iterations.map(\.hat) == ["planner", "builder", "reviewer"])
        #expect(state.iterations.map(\.eventCount) == [2, 1, 1])
        // The start as written is kept only when it is not a timestamp; a parsed one is in startDate.
        #expect(state.iterations.map(\.startedAt) == [nil, nil, nil])
        #expect(state.iterations.map(\.startDate) == [base, base + 60, base + 120].map { Date(timeIntervalSince1970: $0) })
        #expect(state.iterations.map(\.endDate) == [base + 60, base + 120, base + 300].map { Date(timeIntervalSince1970: $0) })
    }

    @Test("iterationItems gives numbers, hats, start times and durations in seconds")
    func iterationItems() {
        let items = fold(Self.iterationLines).iterationItems()
        #expect(
            items == [
                IterationItem(number: 1, hat: "planner", startedAt: z(0), durationSecs: 60, eventCount: 2),
                IterationItem(number: 2, hat: "builder", startedAt: z(60), durationSecs: 60, eventCount: 1),
                IterationItem(number: 3, hat: "reviewer", startedAt: z(120), durationSecs: 180, eventCount: 1),
            ]
        )
    }

    @Test("iterationStats averages durations and estimates the rest only for live runs with a larger total")
    func iterationStats() {
        let state = fold(Self.iterationLines)
        #expect(
            state.iterationStats(total: 10, live: true)
                == IterationStats(count: 3, current: 3, total: 10, averageDurationSecs: 100, estimatedRemainingSecs: 700)
        )
        #expect(state.iterationStats(total: 10, live: false).estimatedRemainingSecs == nil)
        #expect(state.iterationStats(total: 10, live: false).averageDurationSecs == 100)
        #expect(state.iterationStats(total: nil, live: true).estimatedRemainingSecs == nil)
        #expect(state.iterationStats(total: 3, live: true).estimatedRemainingSecs == nil)
        #expect(state.iterationStats(total: 4, live: true).estimatedRemainingSecs == 100)
    }

    @Test("hat usage counts iterations and records per hat, never the loop pseudo-hat")
    func hatUsage() {
        let state = fold(Self.iterationLines)
        #expect(
            state.hatUsageList() == [
                HatUsage(hat: "builder", iterations: 1, events: 1),
                HatUsage(hat: "planner", iterations: 1, events: 2),
                HatUsage(hat: "reviewer", iterations: 1, events: 1),
            ]
        )
        #expect(state.hatUsage["loop"] == nil)
    }

    @Test("an iteration opened by a loop record takes the hat of its first real record")
    func iterationHatFilledLater() {
        let state = fold([
            record(t(0), 0, "loop", "task.start", triggered: "builder"),
            record(t(10), 1, "loop", "event.orphaned"),
            record(t(20), 1, "builder", "build.done"),
        ])
        #expect(state.iterations.map(\.hat) == ["builder"])
        #expect(state.iterations.first?.eventCount == 1)  // the loop record is not work of the iteration
        #expect(state.hatUsage["builder"]?.events == 1)
    }

    @Test("a loop record (loop.terminate) ends the last iteration without counting as its work")
    func loopRecordEndsIteration() throws {
        let state = fold([
            record(t(0), 0, "loop", "task.start", triggered: "builder"),
            record(t(60), 1, "builder", "build.done", triggered: "builder"),
            record(t(90), 2, "builder", "build.done"),
            record(t(100), 2, "loop", "loop.terminate", payload: "## Reason\ncompleted"),
        ])
        #expect(state.iterations.map(\.number) == [1, 2])
        #expect(state.iterations.map(\.eventCount) == [1, 1])
        #expect(state.iterationItems().map(\.durationSecs) == [60, 40])
        #expect(state.iteration == 2)
        #expect(state.termination?.reason == "completed")
    }

    @Test("a hat filled into an iteration opened by a loop record counts in hat usage")
    func iterationHatFilledLaterCountsInHatUsage() {
        let state = fold([
            record(t(0), 0, "loop", "task.start", triggered: "builder"),
            record(t(10), 1, "loop", "event.orphaned"),
            record(t(20), 1, "builder", "build.done"),
        ])
        #expect(state.hatUsageList() == [HatUsage(hat: "builder", iterations: 1, events: 1)])
    }

    @Test("records of iteration 0 do not make an iteration")
    func iterationZero() {
        let state = fold([
            record(t(0), 0, "loop", "task.start", triggered: "planner"),
            record(t(5), 0, "planner", "plan.start"),
        ])
        #expect(state.iterations.isEmpty)
        #expect(state.iteration == 0)
        #expect(state.hatUsage["planner"]?.events == 1)
        #expect(state.hatUsage["planner"]?.iterations == 0)
    }

    // MARK: Backpressure

    @Test("backpressure is read from build.done and build.blocked payloads")
    func backpressure() throws {
        let states = folds([
            record(t(0), 0, "loop", "task.start", triggered: "builder"),
            record(t(10), 1, "builder", "build.done", payload: "tests: pass\nlint: pass\ntypecheck: fail"),
            record(
                t(20), 2, "builder", "build.blocked", payload: "\u{1B}[32mtests: pass\u{1B}[0m\n\u{1B}[31mlint: fail\u{1B}[0m",
                extra: [("blocked_count", 2)]
            ),
            emit("build.done", t(30), payload: "tests: pass"),
        ])
        #expect(states[0].backpressure == nil)

        let done = try #require(states[1].backpressure)
        #expect(done.tests == true)
        #expect(done.lint == true)
        #expect(done.typecheck == false)
        #expect(done.checks.map(\.name) == ["tests", "lint", "typecheck"])
        #expect(done.checks.map(\.passed) == [true, true, false])
        #expect(done.topic == "build.done")
        #expect(done.at == z(10))
        #expect(done.iteration == 1)
        #expect(done.eventId == 2)
        #expect(done.blockedCount == nil)
        #expect(done.doneCount == 1)
        #expect(done.blockedEvents == 0)

        let blocked = try #require(states[2].backpressure)
        #expect(blocked.tests == true)
        #expect(blocked.lint == false)
        #expect(blocked.typecheck == nil)
        #expect(blocked.checks == [
            BackpressureCheck(name: "tests", result: "pass", passed: true), BackpressureCheck(name: "lint", result: "fail", passed: false),
        ])
        #expect(blocked.topic == "build.blocked")
        #expect(blocked.blockedCount == 2)
        #expect(blocked.iteration == 2)
        #expect(blocked.eventId == 3)
        #expect(blocked.doneCount == 1)
        #expect(blocked.blockedEvents == 1)

        let emitted = try #require(states[3].backpressure)
        #expect(emitted.iteration == 2)  // no iteration on the line: the run's current one
        #expect(emitted.eventId == 4)
        #expect(emitted.tests == true)
        #expect(emitted.lint == nil)
        #expect(emitted.doneCount == 2)
        #expect(emitted.blockedEvents == 1)
    }

    // MARK: Tokens

    @Test("token usage is summed from object payloads, JSON-string payloads and the event's own fields")
    func tokens() throws {
        let state = fold([
            emit("agent.usage", t(0), payload: ["usage": ["input_tokens": 100, "output_tokens": 20], "total_cost_usd": 0.5]),
            emit("agent.usage", t(1), payload: #"{"usage":{"input_tokens":5,"output_tokens":1},"total_cost_usd":0.25}"#),
            emit("agent.note", t(2), payload: "no usage here"),
            #"{"topic":"result","usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":3,"cache_creation_input_tokens":4},"cost_usd":0.125,"ts":"2026-02-05T10:00:03Z"}"#,
        ])
        let tokens = try #require(state.tokens)
        #expect(tokens.inputTokens == 106)
        #expect(tokens.outputTokens == 23)
        #expect(tokens.cacheReadTokens == 3)
        #expect(tokens.cacheCreationTokens == 4)
        #expect(tokens.costUsd == 0.875)
        #expect(tokens.reports == 3)
        #expect(tokens.samples == [
            TokenSample(at: z(0), inputTokens: 100, outputTokens: 20, eventId: 1),
            TokenSample(at: z(1), inputTokens: 5, outputTokens: 1, eventId: 2),
            TokenSample(at: z(3), inputTokens: 1, outputTokens: 2, eventId: 4),
        ])
    }

    @Test("a run without usage reports has no token metrics")
    func noTokens() {
        #expect(fold([emit("a", t(0), payload: "tokens: 5"), emit("b", t(1), payload: ["x": 1])]).tokens == nil)
    }

    @Test("token samples keep the latest 60 while totals cover every report")
    func tokenSampleCap() throws {
        let lines = (0..<70).map { i in emit("agent.usage", t(i), payload: ["usage": ["input_tokens": 10, "output_tokens": 1]]) }
        let tokens = try #require(fold(lines).tokens)
        #expect(tokens.reports == 70)
        #expect(tokens.inputTokens == 700)
        #expect(tokens.outputTokens == 70)
        #expect(tokens.costUsd == nil)
        #expect(tokens.samples.count == RunState.tokenSampleLimit)
        #expect(RunState.tokenSampleLimit == 60)
        #expect(tokens.samples.map(\.eventId) == Array(11...70))
    }

    // MARK: Termination

    @Test("loop.terminate is parsed into termination; an emit line keeps it, a later orchestrator record clears it")
    func termination() throws {
        let states = folds([
            record(t(0), 0, "loop", "task.start", triggered: "planner"),
            ###"{"ts":"2026-02-05T09:30:00.500+00:00","iteration":12,"hat":"loop","topic":"loop.terminate","payload":"## Reason\ncompleted\n\n## Status\nAll tasks completed successfully.\n\n## Summary\n- Iterations: 12\n- Duration: 21m 0s\n- Exit code: 0"}"###,
            emit("human.guidance", t(3600), payload: "too late"),
            record(t(3700), 13, "loop", "task.resume", triggered: "builder"),
        ])
        #expect(states[0].termination == nil)
        let stop = try #require(states[1].termination)
        #expect(
            stop == StopReason(reason: "completed", message: "All tasks completed successfully.", iterations: 12, duration: "21m 0s", exitCode: 0, at: "2026-02-05T09:30:00.500Z")
        )
        #expect(states[1].terminationEventID == 2)
        #expect(states[1].iteration == 12)
        #expect(states[1].hat == "planner")
        #expect(states[2].termination == stop)
        #expect(states[2].terminationEventID == 2)
        #expect(states[3].termination == nil)
        #expect(states[3].terminationEventID == nil)
        #expect(states[3].hat == "builder")
    }

    // MARK: Pending question

    @Test("human.interact sets the pending question and human.response clears it")
    func pendingQuestionAnswered() {
        let states = folds([
            record(t(0), 0, "loop", "task.start", triggered: "planner"),
            emit("human.interact", t(10), payload: "Which database?"),
            emit("human.response", t(20), payload: "Postgres"),
        ])
        #expect(states[0].pendingQuestion == nil)
        #expect(states[1].pendingQuestion?.id == 2)
        #expect(states[1].pendingQuestion?.payloadText == "Which database?")
        #expect(states[2].pendingQuestion == nil)
    }

    @Test("a later orchestrator record of another topic clears the pending question, an emit line does not")
    func pendingQuestionExpires() {
        let states = folds([
            record(t(0), 0, "loop", "task.start", triggered: "planner"),
            record(t(10), 1, "planner", "human.interact", payload: "Which database?"),
            emit("build.note", t(15)),
            record(t(20), 1, "planner", "human.response", payload: "n/a"),
        ])
        #expect(states[1].pendingQuestion?.id == 2)
        #expect(states[2].pendingQuestion?.id == 2)
        #expect(states[3].pendingQuestion == nil)

        let expired = fold([
            emit("human.interact", t(10), payload: "Which database?"),
            record(t(20), 1, "planner", "plan.ready", triggered: "builder"),
        ])
        #expect(expired.pendingQuestion == nil)
    }

    @Test("a newer question replaces an older one")
    func newerQuestion() {
        let state = fold([
            emit("human.interact", t(10), payload: "First?"),
            emit("human.interact", t(20), payload: "Second?"),
        ])
        #expect(state.pendingQuestion?.id == 2)
    }

    // MARK: Recent events

    @Test("recent events keep the latest 20 and recent tool calls only events with a tool field")
    func recentEvents() {
        var lines = (0..<25).map { i in emit("e\(i)", t(i)) }
        lines.insert("garbage", at: 3)
        lines.append(emit("tool.use", t(30), extra: [("tool", "bash")]))
        lines.append(emit("tool.use", t(31), extra: [("tool", "edit")]))
        let state = fold(lines)
        #expect(RunState.recentLimit == 20)
        #expect(state.recentEvents.count == 20)
        #expect(state.recentEvents.map(\.id) == Array(9...28))
        #expect(state.recentEvents.last?.topic == "tool.use")
        #expect(state.recentToolCalls.map(\.id) == [27, 28])
        #expect(state.recentToolCalls.map { $0.fields["tool"] } == ["bash", "edit"])
    }
}
