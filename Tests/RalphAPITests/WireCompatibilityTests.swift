import Foundation
import Testing

@testable import RalphAPI

// MARK: - Fixtures

private enum Fixture {
    /// 2026-02-05T08:09:13.890Z
    static let start = Date(timeIntervalSince1970: 1_770_278_953.890)
    static let startText = "2026-02-05T08:09:13.890Z"

    static func session(
        hat: String? = "builder", total: Int? = 100, lastEventAt: String? = "2026-02-05T08:18:22.668Z", taskName: String? = "Build the CLI",
        pid: Int? = 4242
    ) -> Session {
        Session(
            id: "c0afaae89cf224b0", iteration: 7, total: total, hat: hat, elapsedSecs: 549, mode: .live, status: .running,
            startedAt: Timestamp.format(start), lastEventAt: lastEventAt, eventCount: 42, taskName: taskName, workspace: ".",
            path: ".ralph/events-20260205-080913.jsonl", pid: pid
        )
    }

    static func question(timeoutAt: String, estimated: Bool = false) -> PendingQuestion {
        PendingQuestion(
            id: "c0afaae89cf224b0-17", questionText: "Which database?", sessionId: "c0afaae89cf224b0",
            askedAt: "2026-02-05T08:20:00.000Z", timeoutAt: timeoutAt, timeoutEstimated: estimated, iteration: 7, hat: "planner", eventId: 17
        )
    }

    static func fullDetail() -> SessionDetail {
        SessionDetail(
            session: session(),
            stopReason: StopReason(reason: "completed", message: "All tasks completed successfully.", iterations: 12, duration: "21m 0s", exitCode: 0, at: "2026-02-05T09:30:00.500Z"),
            hatFlow: [
                HatTransition(from: nil, to: "planner", topic: "task.start", at: "2026-02-05T08:09:13.890Z", iteration: 0, eventId: 1),
                HatTransition(from: "planner", to: "builder", topic: "build.task", at: "2026-02-05T08:11:47.583Z", iteration: 1, eventId: 2),
            ],
            hatTransitions: 2,
            hatUsage: [HatUsage(hat: "builder", iterations: 3, events: 9), HatUsage(hat: "planner", iterations: 1, events: 2)],
            iterationStats: IterationStats(count: 7, current: 7, total: 100, averageDurationSecs: 78.5, estimatedRemainingSecs: 7300.5),
            backpressure: Backpressure(
                tests: true, lint: false, typecheck: nil,
                checks: [BackpressureCheck(name: "tests", result: "pass", passed: true), BackpressureCheck(name: "lint", result: "fail", passed: false)],
                topic: "build.blocked", at: "2026-02-05T08:15:04.261Z", iteration: 6, eventId: 30, blockedCount: 2, doneCount: 3, blockedEvents: 2
            ),
            tokens: TokenMetrics(
                inputTokens: 1200, outputTokens: 340, cacheReadTokens: 10, cacheCreationTokens: 5, costUsd: 0.75, reports: 2,
                samples: [TokenSample(at: "2026-02-05T08:12:00.000Z", inputTokens: 1200, outputTokens: 340, eventId: 12)]
            ),
            // Keys in sorted order: JSONValue's Codable decoding sorts object keys.
            recentToolCalls: [["id": "12", "tool": "bash", "topic": "tool.call"]],
            recentEvents: [["id": "41", "iteration": 7, "payload": "done", "topic": "build.done", "ts": "2026-02-05T08:18:22.668620490+00:00"]],
            pendingQuestion: question(timeoutAt: "2026-02-05T08:25:00.000Z"),
            lineCount: 44,
            malformedLines: 1
        )
    }
}

/// The bytes the server sends. The original client decodes them with Foundation's default `JSONDecoder`, which is what
/// `WireJSON.decoder()` is (pinned in `WireJSONTests`), so the client shapes here decode with it.
private func encode(_ value: some Encodable) throws -> Data {
    try WireJSON.encode(value)
}

/// The encoded value as an ordered JSON object (our parser tells "null" from "absent").
private func encodedObject(_ value: some Encodable) throws -> JSONObject {
    let data = try encode(value)
    return try #require(try JSONParser.parse(Array(data)).objectValue)
}

extension JSONValue {
    fileprivate var arrayItems: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }
}

// MARK: - Tests

@Suite("Wire compatibility with the RalphMobile client")
struct WireCompatibilityTests {
    // MARK: Session

    @Test("a session decodes with the client's Session model and keeps its values")
    func sessionDecodesWithClientModel() throws {
        let session = Fixture.session()
        let client = try WireJSON.decode(ClientSession.self, from: encode(session))
        #expect(client.id == "c0afaae89cf224b0")
        #expect(client.iteration == 7)
        #expect(client.total == 100)
        #expect(client.hat == "builder")
        #expect(client.elapsedSeconds == 549)
        #expect(client.mode == "live")
        #expect(client.status == "running")
        #expect(client.startedAt == Fixture.startText)
        #expect(client.triggerEvent == nil)
        #expect(client.availablePublishes == nil)
    }

    @Test("the session list is a bare array the client decodes as [Session]")
    func sessionListDecodes() throws {
        var complete = Fixture.session(hat: nil, total: nil)
        complete.id = "74aff6f801e31469"
        complete.mode = .complete
        complete.status = .completed
        let clients = try WireJSON.decode([ClientSession].self, from: encode([Fixture.session(), complete]))
        #expect(clients.map(\.id) == ["c0afaae89cf224b0", "74aff6f801e31469"])
        #expect(clients.map(\.mode) == ["live", "complete"])
        #expect(clients.map(\.status) == ["running", "completed"])
        #expect(clients[1].hat == nil)
        #expect(clients[1].total == nil)
    }

    @Test("hat, total and last_event_at are explicit nulls when nil")
    func sessionNullsAreExplicit() throws {
        let object = try encodedObject(Fixture.session(hat: nil, total: nil, lastEventAt: nil, taskName: nil, pid: nil))
        for key in ["hat", "total", "last_event_at", "task_name", "pid"] {
            #expect(object.keys.contains(key), "\(key) missing")
            #expect(object[key] == .null, "\(key) is \(String(describing: object[key]))")
        }
        let client = try WireJSON.decode(ClientSession.self, from: encode(Fixture.session(hat: nil, total: nil)))
        #expect(client.hat == nil)
        #expect(client.total == nil)
        #expect(client.iteration == 7)
    }

    @Test("a session uses snake_case keys and only the documented ones")
    func sessionKeys() throws {
        let object = try encodedObject(Fixture.session())
        #expect(
            Set(object.keys)
                == [
                    "id", "iteration", "total", "hat", "elapsed_secs", "mode", "status", "started_at", "last_event_at", "event_count",
                    "task_name", "workspace", "path", "pid",
                    // issue 21: a stop asked, a hook suspension, who paused the run (explicit nulls when unset).
                    "stop_requested", "suspension", "paused_by",
                    // issue 22: what the original app's hat-flow panel shows.
                    "trigger_event", "publishes",
                ]
        )
        #expect(object["event_count"] == .int(42))
        #expect(object["path"] == .string(".ralph/events-20260205-080913.jsonl"))
    }

    @Test("a session round-trips through its own Codable conformance")
    func sessionRoundTrip() throws {
        for session in [Fixture.session(), Fixture.session(hat: nil, total: nil, lastEventAt: nil, taskName: nil, pid: nil)] {
            #expect(try WireJSON.decode(Session.self, from: encode(session)) == session)
        }
    }

    @Test("started_at has fractional seconds that the client's ISO 8601 parser accepts")
    func startedAtHasFractionalSeconds() throws {
        for interval in [1_770_278_953.890, 1_705_314_225.0, 0.5, -1.0] {
            var session = Fixture.session()
            session.startedAt = Timestamp.format(Date(timeIntervalSince1970: interval))
            let client = try WireJSON.decode(ClientSession.self, from: encode(session))
            let start = try #require(client.startTime, "client could not parse \(client.startedAt ?? "nil")")
            #expect(abs(start.timeIntervalSince1970 - interval) < 0.001)
        }
    }

    // MARK: Session detail

    @Test("the session detail flattens the session fields at its top level")
    func detailIsFlat() throws {
        let object = try encodedObject(Fixture.fullDetail())
        #expect(!object.keys.contains("session"))
        for key in ["id", "iteration", "hat", "started_at", "mode", "status", "elapsed_secs", "total"] {
            #expect(object.keys.contains(key), "\(key) missing")
        }
        for key in [
            "stop_reason", "hat_flow", "hat_transitions", "hat_usage", "iteration_stats", "backpressure", "tokens",
            "recent_tool_calls", "recent_events", "pending_question", "line_count", "malformed_lines",
        ] {
            #expect(object.keys.contains(key), "\(key) missing")
        }
        #expect(object["id"] == .string("c0afaae89cf224b0"))
        #expect(object["line_count"] == .int(44))
        #expect(object["stop_reason"]?.objectValue?["exit_code"] == .int(0))
        let flow = try #require(object["hat_flow"]?.arrayItems)
        #expect(flow.count == 2)
        #expect(flow[1].objectValue?["event_id"] == .int(2))
        #expect(flow[1].objectValue?["from"] == .string("planner"))
    }

    @Test("the session detail decodes with the client's Session model")
    func detailDecodesAsClientSession() throws {
        let client = try WireJSON.decode(ClientSession.self, from: encode(Fixture.fullDetail()))
        #expect(client.id == "c0afaae89cf224b0")
        #expect(client.iteration == 7)
        #expect(client.hat == "builder")
        #expect(client.mode == "live")
    }

    @Test("the session detail round-trips through its own Decodable init")
    func detailRoundTrip() throws {
        let detail = Fixture.fullDetail()
        let decoded = try WireJSON.decode(SessionDetail.self, from: encode(detail))
        #expect(decoded.session == detail.session)
        #expect(decoded.stopReason == detail.stopReason)
        #expect(decoded.hatFlow == detail.hatFlow)
        #expect(decoded.backpressure == detail.backpressure)
        #expect(decoded.tokens == detail.tokens)
        #expect(decoded.recentEvents == detail.recentEvents)
        #expect(decoded.pendingQuestion == detail.pendingQuestion)
        #expect(decoded == detail)
    }

    @Test("a session detail with every optional part missing writes nulls and round-trips")
    func sparseDetailRoundTrip() throws {
        let detail = SessionDetail(
            session: Fixture.session(hat: nil, total: nil, lastEventAt: nil, taskName: nil, pid: nil), stopReason: nil, hatFlow: [],
            hatTransitions: 0, hatUsage: [], iterationStats: IterationStats(count: 0, current: 0, total: nil, averageDurationSecs: nil, estimatedRemainingSecs: nil),
            backpressure: nil, tokens: nil, recentToolCalls: [], recentEvents: [], pendingQuestion: nil, lineCount: 0, malformedLines: 0
        )
        let object = try encodedObject(detail)
        for key in ["stop_reason", "backpressure", "tokens", "pending_question", "hat"] {
            #expect(object[key] == .null, "\(key)")
        }
        #expect(try WireJSON.decode(SessionDetail.self, from: encode(detail)) == detail)
    }

    @Test("backpressure decodes with the client's BackpressureStatus")
    func backpressureDecodes() throws {
        let backpressure = try #require(Fixture.fullDetail().backpressure)
        let client = try WireJSON.decode(ClientBackpressureStatus.self, from: encode(backpressure))
        #expect(client.testsPass)
        #expect(!client.lintPass)
        #expect(!client.typecheckPass)
        let object = try encodedObject(backpressure)
        #expect(object["tests"] == .bool(true))
        #expect(object["lint"] == .bool(false))
    }

    // MARK: Pending questions

    @Test("a pending question with a timeout decodes with the client's PendingQuestion")
    func pendingQuestionDecodes() throws {
        struct Questions: Encodable { let questions: [PendingQuestion] }
        let data = try encode(Questions(questions: [Fixture.question(timeoutAt: "2026-02-05T08:25:00.000Z")]))
        let response = try WireJSON.decode(ClientQuestionsResponse.self, from: data)
        let question = try #require(response.questions.first)
        #expect(question.id == "c0afaae89cf224b0-17")
        #expect(question.questionText == "Which database?")
        #expect(question.sessionId == "c0afaae89cf224b0")
        #expect(question.askedAt == "2026-02-05T08:20:00.000Z")
        #expect(question.timeoutAt == "2026-02-05T08:25:00.000Z")
        #expect(question.iteration == 7)
        #expect(question.hat == "planner")
    }

    @Test("a question whose timeout is estimated still carries timeout_at, which the client requires")
    func pendingQuestionWithoutTimeoutDecodes() throws {
        struct Questions: Encodable { let questions: [PendingQuestion] }
        let data = try encode(Questions(questions: [Fixture.question(timeoutAt: "2026-02-05T08:25:00.000Z", estimated: true)]))
        let response = try WireJSON.decode(ClientQuestionsResponse.self, from: data)
        #expect(response.questions.count == 1)
        #expect(try encodedObject(Fixture.question(timeoutAt: "t", estimated: true))["timeout_estimated"] == .bool(true))
    }

    @Test("a pending question round-trips through its own Codable conformance")
    func pendingQuestionRoundTrip() throws {
        for question in [Fixture.question(timeoutAt: "2026-02-05T08:25:00.000Z"), Fixture.question(timeoutAt: "2026-02-05T08:25:00.000Z", estimated: true)] {
            #expect(try WireJSON.decode(PendingQuestion.self, from: encode(question)) == question)
        }
        let object = try encodedObject(Fixture.question(timeoutAt: "x"))
        #expect(object["event_id"] == .int(17))
        #expect(object["question_text"] == .string("Which database?"))
    }

    // MARK: Iterations, scratchpad

    @Test("the iterations response decodes with the client's IterationsResponse")
    func iterationsDecode() throws {
        let response = IterationsResponse(
            iterations: [
                IterationItem(number: 1, hat: "planner", startedAt: "2026-02-05T08:09:13.890Z", durationSecs: 154, eventCount: 3),
                IterationItem(number: 2, hat: nil, startedAt: "2026-02-05T08:11:47.583Z", durationSecs: nil, eventCount: 1),
            ],
            total: 2
        )
        let client = try WireJSON.decode(ClientIterationsResponse.self, from: encode(response))
        #expect(client.total == 2)
        #expect(client.iterations.map(\.number) == [1, 2])
        #expect(client.iterations.map(\.hat) == ["planner", nil])
        #expect(client.iterations.map(\.startedAt) == ["2026-02-05T08:09:13.890Z", "2026-02-05T08:11:47.583Z"])
        #expect(client.iterations.map(\.durationSecs) == [154, nil])
        #expect(try WireJSON.decode(IterationsResponse.self, from: encode(response)) == response)
        let first = try #require(try encodedObject(response)["iterations"]?.arrayItems?.first?.objectValue)
        #expect(first["event_count"] == .int(3))
    }

    @Test("the scratchpad response gives the client its content and writes updated_at as null when missing")
    func scratchpadDecodes() throws {
        let present = ScratchpadResponse(content: "# Plan\n- [ ] step", updatedAt: "2026-02-05T08:20:00.000Z", path: ".ralph/agent/scratchpad.md")
        #expect(try WireJSON.decode(ClientScratchpad.self, from: encode(present)).content == "# Plan\n- [ ] step")
        let missing = ScratchpadResponse(content: "", updatedAt: nil, path: ".ralph/agent/scratchpad.md")
        let object = try encodedObject(missing)
        #expect(Set(object.keys) == ["content", "updated_at", "path"])
        #expect(object["updated_at"] == .null)
        #expect(try WireJSON.decode(ClientScratchpad.self, from: encode(missing)).content == "")
        #expect(try WireJSON.decode(ScratchpadResponse.self, from: encode(present)) == present)
    }

    // MARK: Errors, health, stream end

    @Test("error bodies are {\"error\": \"<prefix>: <detail>\"}")
    func errorFormatting() throws {
        #expect(ErrorResponse(prefix: .invalidPath, detail: "../etc/passwd").error == "invalid_path: ../etc/passwd")
        #expect(ErrorResponse(prefix: .sessionNotFound, detail: nil).error == "session_not_found")
        #expect(ErrorResponse(prefix: .conflict, detail: "").error == "conflict")
        #expect(ErrorResponse(prefix: .forbidden, detail: "needs admin").error == "forbidden: needs admin")
        let data = try encode(ErrorResponse(prefix: .invalidTopic, detail: "bad topic"))
        #expect(String(decoding: data, as: UTF8.self) == #"{"error":"invalid_topic: bad topic"}"#)
        #expect(try WireJSON.decode(ClientErrorBody.self, from: data).error.hasPrefix("invalid_topic:"))
    }

    @Test("prefix and detail are read back from an error string")
    func errorParsing() {
        let withDetail = ErrorResponse(error: "invalid_topic: bad: topic")
        #expect(withDetail.prefix == .invalidTopic)
        #expect(withDetail.detail == "bad: topic")
        let bare = ErrorResponse(error: "session_not_found")
        #expect(bare.prefix == .sessionNotFound)
        #expect(bare.detail == nil)
        let unknown = ErrorResponse(error: "question_not_found")
        #expect(unknown.prefix == ErrorPrefix(rawValue: "question_not_found"))
        for prefix in [ErrorPrefix.failedToSpawn, .configNotFound, .promptNotFound, .notRunning, .internalError] {
            let response = ErrorResponse(prefix: prefix, detail: "something went wrong")
            #expect(response.prefix == prefix)
            #expect(response.detail == "something went wrong")
        }
    }

    @Test("the health response uses snake_case keys and round-trips")
    func healthResponse() throws {
        let health = HealthResponse(
            status: "ok", version: RalphMobileVersion.current, timestamp: "2026-02-05T08:20:00.000Z",
            protocolVersion: RalphMobileVersion.protocolVersion, capabilities: ["sessions", "session_events"], authRequired: true
        )
        let object = try encodedObject(health)
        #expect(Set(object.keys) == ["status", "version", "timestamp", "protocol_version", "capabilities", "auth_required"])
        #expect(object["protocol_version"] == .int(1))
        #expect(object["auth_required"] == .bool(true))
        #expect(try WireJSON.decode(HealthResponse.self, from: encode(health)) == health)
    }

    @Test("the end frame decodes with the client's Event decoder as topic stream.end")
    func streamEndDecodesAsEvent() throws {
        let end = StreamEnd(mode: .complete, status: .completed, reason: "completed", lastEventId: 44, ts: "2026-02-05T09:30:00.500Z")
        let event = try WireJSON.decode(ClientEvent.self, from: encode(end))
        #expect(event.topic == "stream.end")
        #expect(event.type == "event.published")
        #expect(event.payload == nil)
        #expect(!event.usedFallbackDate)
        #expect(abs(event.timestamp.timeIntervalSince1970 - 1_770_283_800.5) < 0.001)
    }

    @Test("the end frame writes every field, reason as null when nil, and round-trips")
    func streamEndShape() throws {
        let end = StreamEnd(mode: .complete, status: .stopped, reason: nil, lastEventId: 3, ts: "2026-02-05T09:30:00.500Z")
        let object = try encodedObject(end)
        #expect(Set(object.keys) == ["mode", "status", "reason", "last_event_id", "topic", "ts"])
        #expect(object["reason"] == .null)
        #expect(object["mode"] == .string("complete"))
        #expect(object["status"] == .string("stopped"))
        #expect(object["last_event_id"] == .int(3))
        #expect(try WireJSON.decode(StreamEnd.self, from: encode(end)) == end)
    }

    @Test("mode and status values are the plain strings the client compares against")
    func modeAndStatusStrings() throws {
        #expect(SessionMode.live.rawValue == "live")
        #expect(SessionMode.paused.rawValue == "paused")
        #expect(SessionMode.complete.rawValue == "complete")
        #expect(String(decoding: try encode([SessionStatus.running, .paused, .completed, .failed, .stopped]), as: UTF8.self)
            == #"["running","paused","completed","failed","stopped"]"#)
        #expect(try WireJSON.decode(SessionMode.self, from: Data(#""live""#.utf8)) == .live)
    }
}
