import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

@Suite("Run state fold: termination, pending question and recent events")
struct RunStateEventTests {
    @Test("loop.terminate is parsed into termination; an emit line keeps it, a later orchestrator record clears it")
    func termination() throws {
        let states = foldPrefixes([
            taskStart("planner"),
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
        let states = foldPrefixes([
            taskStart("planner"),
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
        let states = foldPrefixes([
            taskStart("planner"),
            record(t(10), 1, "planner", "human.interact", payload: "Which database?"),
            emit("build.note", t(15)),
            record(t(20), 1, "planner", "human.response", payload: "n/a"),
        ])
        #expect(states[1].pendingQuestion?.id == 2)
        #expect(states[2].pendingQuestion?.id == 2)
        #expect(states[3].pendingQuestion == nil)

        let expired = foldLines([
            emit("human.interact", t(10), payload: "Which database?"),
            record(t(20), 1, "planner", "plan.ready", triggered: "builder"),
        ])
        #expect(expired.pendingQuestion == nil)
    }

    @Test("a newer question replaces an older one")
    func newerQuestion() {
        let state = foldLines([
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
        let state = foldLines(lines)
        #expect(RunState.recentLimit == 20)
        #expect(state.recentEvents.count == 20)
        #expect(state.recentEvents.map(\.id) == Array(9...28))
        #expect(state.recentEvents.last?.topic == "tool.use")
        #expect(state.recentToolCalls.map(\.id) == [27, 28])
        #expect(state.recentToolCalls.map { $0.fields["tool"] } == ["bash", "edit"])
    }
}
