import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

@Suite("Run state fold: backpressure and tokens")
struct RunStateMetricsTests {
    @Test("backpressure is read from build.done and build.blocked payloads")
    func backpressure() throws {
        let states = foldPrefixes([
            taskStart("builder"),
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
        let state = foldLines([
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
        #expect(foldLines([emit("a", t(0), payload: "tokens: 5"), emit("b", t(1), payload: ["x": 1])]).tokens == nil)
    }

    @Test("token samples keep the latest 60 while totals cover every report")
    func tokenSampleCap() throws {
        let lines = (0..<70).map { i in emit("agent.usage", t(i), payload: ["usage": ["input_tokens": 10, "output_tokens": 1]]) }
        let tokens = try #require(foldLines(lines).tokens)
        #expect(tokens.reports == 70)
        #expect(tokens.inputTokens == 700)
        #expect(tokens.outputTokens == 70)
        #expect(tokens.costUsd == nil)
        #expect(tokens.samples.count == RunState.tokenSampleLimit)
        #expect(RunState.tokenSampleLimit == 60)
        #expect(tokens.samples.map(\.eventId) == Array(11...70))
    }
}
