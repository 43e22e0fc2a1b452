import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

@Suite("Run state fold")
struct RunStateTests {
    // MARK: Iteration and hat

    @Test("iteration and hat come from orchestrator records; agent lines change neither")
    func iterationAndHat() {
        let states = foldPrefixes([
            taskStart("planner"),
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
        let states = foldPrefixes([
            taskStart("planner"),
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
        let state = foldLines([
            taskStart("planner"),
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
        let state = foldLines([
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
        let state = foldLines([
            emit("empty", t(0), payload: nil),
            record(t(1), 0, "loop", "task.start", triggered: "planner", payload: "  \n   Build the CLI  \nwith tests"),
            emit("later", t(2), payload: "Something else"),
        ])
        #expect(state.taskName == "Build the CLI")
    }

    @Test("a very long first line is cut to 200 characters ending with an ellipsis")
    func longTaskName() throws {
        let long = String(repeating: "x", count: 500)
        let name = try #require(foldLines([emit("task.start", t(0), payload: .string(long))]).taskName)
        #expect(name.count == 200)
        #expect(name.hasSuffix("…"))
        #expect(name.hasPrefix(String(repeating: "x", count: 199)))
    }

    @Test("an object payload gives its compact JSON as the task name")
    func objectTaskName() {
        #expect(foldLines([emit("task.start", t(0), payload: ["goal": "ship"])]).taskName == #"{"goal":"ship"}"#)
    }

    // MARK: Hat flow

    @Test("hat flow records each change with from, to, topic, time, iteration and event id")
    func hatFlow() {
        let state = foldLines([
            taskStart("planner"),
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
        let state = foldLines(lines)
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
}
