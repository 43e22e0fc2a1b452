import Foundation
import RalphAPI
import RalphFiles
import Testing
@testable import RalphMobileServer

/// ralph 2.9–2.10 signals through the real server with fake-ralph: guidance acknowledged, agent waves grouped,
/// RObot web-mode questions answered through `.ralph/api/`.
@Suite("ralph 2.10 signals", .serialized)
struct SignalsTests {
    @Test("guidance shows pending, then acknowledged with the ack's text; the loop completes only after the ack")
    func guidanceAcknowledged() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 3\npace: 2")
        let started = try await h.startRun()
        try await eventually(5, "the run's events file") { try await h.status(started.id).eventCount > 0 }
        let sent = try await h.post("/api/robot/guidance", #"{"session_id":"\#(started.id)","guidance_text":"use the retry approach"}"#)
        #expect(sent.status == 200)
        // Sent to ralph (over RPC for a run this server started): listed once ralph wrote the line.
        let listed = Locked<[GuidanceItem]>([])
        try await eventually(10, "the guidance listed") {
            let items = try await HTTP.get(h.server.base + "/api/sessions/\(started.id)").json(SessionDetail.self).guidance
            listed.withLock { $0 = items }
            return !items.isEmpty
        }
        let first = listed.withLock { $0 }
        #expect(first.map(\.text) == ["use the retry approach"] && first.first?.state == .pending, "\(first)")

        let messages = try await h.stream(started.id).messagesUntilClosed(timeout: 30)
        let ack = try #require(messages.first { $0.json["topic"] as? String == "human.guidance.ack" })
        #expect((ack.json["payload"] as? String)?.contains("use the retry approach") == true)
        let complete = try #require(messages.first { $0.json["topic"] as? String == "LOOP_COMPLETE" })
        #expect(complete.line! > ack.line!, "LOOP_COMPLETE comes after the ack")

        let detail = try await HTTP.get(h.server.base + "/api/sessions/\(started.id)").json(SessionDetail.self)
        let item = try #require(detail.guidance.first)
        #expect(detail.guidance.count == 1 && item.state == .acknowledged)
        #expect(item.ack == ack.json["payload"] as? String && item.ackEventId == ack.line && item.ackedAt != nil && item.sentAt != nil)
    }

    @Test("guidance sent during the last iteration holds LOOP_COMPLETE back until it is acknowledged")
    func completionWaitsForAck() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 1\npace: 1.0")
        let started = try await h.startRun()
        try await eventually(5, "the run's events file") { try await h.status(started.id).eventCount > 0 }
        #expect(try await h.post("/api/robot/guidance", #"{"session_id":"\#(started.id)","guidance_text":"also update the docs"}"#).status == 200)
        let messages = try await h.stream(started.id).messagesUntilClosed(timeout: 15)
        let topics = messages.compactMap { $0.json["topic"] as? String }
        let ack = try #require(topics.firstIndex(of: "human.guidance.ack"), "\(topics)")
        let complete = try #require(topics.firstIndex(of: "LOOP_COMPLETE"))
        #expect(ack < complete)
        let detail = try await HTTP.get(h.server.base + "/api/sessions/\(started.id)").json(SessionDetail.self)
        #expect(detail.guidance.allSatisfy { $0.state == .acknowledged } && detail.session.status == .completed)
    }

    @Test("an agent wave's lines keep wave_id/wave_index/wave_total on the stream and are grouped in the detail")
    func waveGrouped() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 3\npace: 0.1\nwave_at: 2\nwave_total: 3")
        let started = try await h.startRun()
        let messages = try await h.stream(started.id).messagesUntilClosed(timeout: 15)
        let waveLines = messages.filter { $0.json["wave_id"] != nil }
        #expect(waveLines.count == 3)
        #expect(waveLines.compactMap { $0.json["wave_index"] as? Int } == [0, 1, 2])
        #expect(waveLines.allSatisfy { $0.json["wave_total"] as? Int == 3 })

        let detail = try await HTTP.get(h.server.base + "/api/sessions/\(started.id)").json(SessionDetail.self)
        let wave = try #require(detail.waves.first)
        #expect(detail.waves.count == 1 && wave.id == waveLines[0].json["wave_id"] as? String)
        #expect(wave.total == 3 && wave.done == 3 && wave.isComplete && wave.indices == [0, 1, 2] && wave.hats == ["builder"] && wave.iteration == 2)
        #expect(wave.firstEventId == waveLines[0].line && wave.lastEventId == waveLines[2].line)
    }

    @Test("a RObot web-mode question is pending like human.interact, answered from the phone through robot-response.json, and the loop goes on")
    func webQuestionAnswered() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        let config = h.config("iterations: 4\npace: 0.1\nask: \"Merge now?\"\nask_at: 2")
        Fixture.write(
            (try String(contentsOfFile: config, encoding: .utf8)) + "RObot:\n  enabled: true\n  mode: web\n  timeout_seconds: 30\n  checkin_interval_seconds: 1\n",
            to: config
        )
        let started = try await h.startRun()
        let question = Locked<PendingQuestion?>(nil)
        try await eventually(10, "the web question") {
            let first = try await HTTP.get(h.server.base + "/api/robot/questions").json(RobotQuestionsResponse.self).questions.first
            question.withLock { $0 = first }
            return first != nil
        }
        let q = try #require(question.value)
        #expect(q.source == "web" && q.id.hasPrefix(started.id + "-robot-") && q.questionText == "Merge now?" && !q.timeoutEstimated)
        let detail = try await HTTP.get(h.server.base + "/api/sessions/\(started.id)").json(SessionDetail.self)
        #expect(detail.pendingQuestion == q)
        #expect(detail.checkin?.loopId?.hasPrefix("primary-") == true, "the check-in is shown: \(String(describing: detail.checkin))")

        // A wrong question id changes nothing.
        let wrong = try await h.post("/api/robot/response", #"{"question_id":"\#(started.id)-robot-99","response_text":"No"}"#)
        #expect(wrong.status == 404 && wrong.text.contains("question_not_found"))
        let answer = try await h.post("/api/robot/response", #"{"question_id":"\#(q.id)","response_text":"Yes, merge"}"#)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(try answer.json(RobotResponseAck.self).questionId == q.id)

        let messages = try await h.stream(started.id).messagesUntilClosed(timeout: 15)
        #expect(messages.contains { $0.json["topic"] as? String == "human.response" && $0.json["payload"] as? String == "Yes, merge" })
        #expect(messages.contains { ($0.json["payload"] as? String)?.contains("answer: Yes, merge") == true }, "the loop went on with the answer")
        #expect(messages.contains { $0.json["topic"] as? String == "LOOP_COMPLETE" })
        #expect(try await HTTP.get(h.server.base + "/api/robot/questions").json(RobotQuestionsResponse.self).questions.isEmpty)
    }
}
