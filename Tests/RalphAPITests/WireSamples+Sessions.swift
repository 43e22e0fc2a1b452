import Foundation
import Testing

import RalphAPI

/// Values of every wire type with their optional fields set (and, where `nil` is written as `null`, without), for the
/// round-trip suite. Timestamps are the contract's canonical form.
enum WireSamples {
    static let ts = "2026-02-05T08:09:13.890Z"
    static let later = "2026-02-05T08:18:22.668Z"

    static let session = Session(
        id: "3fa2c901-7d1e-4b8a-9c55-0d2e6f1a8b34", iteration: 7, total: 20, hat: "builder", elapsedSecs: 549, mode: .live,
        status: .running, startedAt: ts, lastEventAt: later, eventCount: 44, taskName: "Add a --json flag", workspace: "proj",
        path: "/work/proj/.ralph/events-20260205-080913.jsonl", pid: 4242
    )

    static let question = PendingQuestion(
        id: "q-12", questionText: "Ship it?", sessionId: session.id, askedAt: ts, timeoutAt: later, timeoutEstimated: true,
        iteration: 7, hat: "reviewer", eventId: 40
    )

    static let detail = SessionDetail(
        session: session,
        stopReason: StopReason(reason: "completed", message: "all done", iterations: 7, duration: "9m", exitCode: 0, at: later),
        hatFlow: [HatTransition(from: "planner", to: "builder", topic: "build.task", at: ts, iteration: 2, eventId: 5)],
        hatTransitions: 1,
        hatUsage: [HatUsage(hat: "builder", iterations: 5, events: 30)],
        iterationStats: IterationStats(count: 7, current: 7, total: 20, averageDurationSecs: 78.5, estimatedRemainingSecs: 1020.5),
        backpressure: backpressure,
        tokens: TokenMetrics(
            inputTokens: 1200, outputTokens: 340, cacheReadTokens: 50, cacheCreationTokens: 10, costUsd: 0.25, reports: 2,
            samples: [TokenSample(at: ts, inputTokens: 1200, outputTokens: 340, eventId: 12)]
        ),
        recentToolCalls: [["id": "12", "tool": "bash", "topic": "tool.call"]],
        recentEvents: [["id": "41", "iteration": 7, "payload": "done", "topic": "build.done", "ts": .string(later)]],
        pendingQuestion: question,
        lineCount: 44,
        malformedLines: 1
    )

    static let backpressure = Backpressure(
        tests: true, lint: false, typecheck: true, checks: [BackpressureCheck(name: "tests", result: "pass", passed: true)],
        topic: "build.done", at: ts, iteration: 6, eventId: 38, blockedCount: 1, doneCount: 3, blockedEvents: 1
    )

    static let workflowEvent: JSONValue = [
        "hat": "builder", "id": 17, "iteration": 3, "payload": "tests: pass", "topic": "build.done", "triggered": "reviewer",
        "ts": "2026-02-05T08:09:13.890123456+00:00",
    ]

    /// Sessions, streams, steering and the robot.
    static let sessions: [WireSample] = [
        .codable(HostInfo(id: "95773ce2c28a", name: "alpha", version: "0.1.0", online: true, lastHeartbeatAt: ts, isSelf: false)),
        .codable(HostList(hosts: [HostInfo(id: "9be783003a83", name: "charlie", version: "0.1.0", online: false, lastHeartbeatAt: ts, isSelf: true)], clustered: true)),
        .codable(session),
        .codable(Session(
            id: "a", iteration: 0, total: nil, hat: nil, elapsedSecs: 0, mode: .complete, status: .completed, startedAt: ts,
            lastEventAt: nil, eventCount: 0, taskName: nil, workspace: "proj", path: "/p", pid: nil
        ), "optionals absent"),
        .codable(Session(
            id: "b", iteration: 3, total: 10, hat: "builder", elapsedSecs: 9, mode: .unreachable, status: .unreachable, startedAt: ts,
            lastEventAt: ts, eventCount: 7, taskName: "t", workspace: "proj", path: "/p", pid: nil, host: "alpha", hostId: "95773ce2c28a",
            reachable: false
        ), "of an offline host"),
        .codable(SessionMode(rawValue: "a-mode-from-a-newer-server"), "unknown value"),
        .codable(SessionStatus(rawValue: "a-status-from-a-newer-server"), "unknown value"),
        .codable(detail),
        .codable(question),
        .codable(backpressure),
        .codable(Backpressure(
            tests: nil, lint: nil, typecheck: nil, checks: [], topic: "build.blocked", at: nil, iteration: 1, eventId: 2,
            blockedCount: nil, doneCount: 0, blockedEvents: 1
        ), "checks not mentioned"),
        .codable(BackpressureCheck(name: "lint", result: "fail", passed: false)),
        .codable(StopReason(reason: "stopped")),
        .codable(HatTransition(from: nil, to: "planner", topic: "task.start", at: nil, iteration: 1, eventId: 1), "first hat"),
        .codable(HatUsage(hat: "planner", iterations: 1, events: 4)),
        .codable(TokenMetrics()),
        .codable(TokenSample(at: nil, inputTokens: 1, outputTokens: 2, eventId: 3)),
        .codable(IterationStats(count: 0, current: 0, total: nil, averageDurationSecs: nil, estimatedRemainingSecs: nil)),
        .codable(IterationItem(number: 3, hat: "builder", startedAt: ts, durationSecs: 61, eventCount: 9)),
        .codable(IterationsResponse(iterations: [IterationItem(number: 1, hat: nil, startedAt: ts, durationSecs: nil, eventCount: 2)], total: 1)),
        .codable(ScratchpadResponse(content: "# Plan\n- [ ] step", updatedAt: ts, path: "/work/proj/.ralph/agent/scratchpad.md")),
        // Streams.
        .codable(StreamEnd(mode: .complete, status: .stopped, reason: nil, lastEventId: 3, ts: ts)),
        .codable(StreamReset(resumedAfter: "17:3fa2c901", reason: "the events file was replaced", ts: ts)),
        .codable(SessionRemoved(id: session.id)),
        WireSample(typeName: "SessionEventID", label: "text → id → text") {
            for text in ["17:3fa2c901", "17", "0:00000000"] {
                let id = try #require(SessionEventID(text))
                #expect(id.description == text)
                #expect(SessionEventID(id.description) == id)
            }
        },
        WireSample(typeName: "WorkflowEvent", label: "JSON → event → JSON") {
            let event = try #require(WorkflowEvent(json: workflowEvent))
            let written = JSONWriter.string(.object(event.fields))
            #expect(WorkflowEvent(data: written) == event, "\(written)")
            #expect(event.id == 17 && event.topic == "build.done" && event.hat == "builder")
        },
        // Steering.
        .codable(StartSessionRequest(
            configPath: "ralph.yml", promptPath: "PROMPT.md", prompt: "Add a flag", workingDir: "/work/proj", backend: "claude",
            maxIterations: 20
        )),
        .codable(StartSessionResponse(id: session.id, status: "started", pending: false, pid: 4242, log: "/tmp/ralph.log")),
        .codable(StopSessionResponse(status: "stopped", signal: "SIGTERM", pid: 4242, terminated: true)),
        .codable(ControlResponse(status: "paused", pid: 4242)),
        .codable(EmitRequest(topic: "human.guidance", payload: ["text": "focus on tests", "urgent": true])),
        .codable(EmitResponse(success: true, topic: "human.guidance", timestamp: ts, id: "45")),
        .codable(EmitResponse(success: true, topic: "user.pause", timestamp: ts, id: "46", done: "paused")),
        .codable(SteerRequest(message: "focus on tests")),
        .codable(SteerResponse(status: "delivered", deliveredAt: ts, id: "46")),
        .codable(RobotQuestionsResponse(questions: [question])),
        .codable(RobotResponseRequest(questionId: "q-12", responseText: "yes")),
        .codable(RobotResponseAck(success: true, questionId: "q-12", deliveredAt: ts, id: "47")),
        .codable(RobotGuidanceRequest(sessionId: session.id, guidanceText: "use the new API")),
        .codable(RobotGuidanceAck(success: true, sessionId: session.id, deliveredAt: ts, id: "48")),
    ]
}
