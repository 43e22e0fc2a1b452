import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Live Activities kept current by the server: `liveactivity` pushes to the local HTTP/2 APNs receiver
/// (`Tests/Receivers/apns_receiver.py`), which checks the provider token, the `liveactivity` push type and topic and
/// the payload, as a run started through the API (the `fake-ralph` double) asks a question, is answered and ends.
@Suite("Live Activities over APNs", .serialized)
struct LiveActivityTests {
    static let token = String(repeating: "cd", count: 32)

    static func register(_ subject: String, _ id: String, token: String = token, state: LiveActivityState? = nil) throws -> String {
        let stateJSON = try state.map { ",\"state\":" + String(decoding: try WireJSON.encode($0), as: UTF8.self) } ?? ""
        return #"{"subject":"\#(subject)","subject_id":"\#(id)","push_token":"\#(token)","environment":"sandbox"\#(stateJSON)}"#
    }

    static func aps(_ entry: JSONObject) -> JSONObject? { entry["payload"]?.objectValue?["aps"]?.objectValue }

    static func state(_ entry: JSONObject) throws -> LiveActivityState {
        let content = try #require(aps(entry)?["content-state"])
        return try WireJSON.decode(LiveActivityState.self, from: Data(try WireJSON.encode(content)))
    }

    @Test("a run on the lock screen: updates as it runs, an alerting update when it asks, the answer taken up, an end push when it completes")
    func followsARun() async throws {
        let tmp = TemporaryDirectory("rm-live-activity")
        let (receiver, credentials) = try await APNsReceiver.started(in: tmp)
        let h = try await SteeringHarness.start { $0.useLocalAPNs(credentials) }
        defer { h.stop() }
        h.config(NotificationDeliveryTests.question, robotTimeout: 60)
        let started = try await h.startRun()
        try await eventually(20, "the run to be live") { try await h.status(started.id).mode == .live }
        let created = try await h.post("/api/notifications/live-activities", try Self.register("session", started.id))
        #expect(created.status == 201, "\(created.text)")
        let registration = try created.json(LiveActivityRegistration.self)
        #expect(registration.subject == .session && registration.subjectId != "" && registration.updatesSent == 0)

        // The question: an alerting, priority-10 update that names it.
        try await eventually(20, "the waiting update") {
            try receiver.liveActivityPushes(to: Self.token).contains { try Self.state($0).phase == .waitingForAnswer }
        }
        let waiting = try #require(try receiver.liveActivityPushes(to: Self.token).first { try Self.state($0).phase == .waitingForAnswer })
        #expect(waiting["headers"]?.objectValue?["apns-priority"]?.stringValue == "10")
        #expect(Self.aps(waiting)?["alert"]?.objectValue?["title"]?.stringValue == "Waiting for your answer")
        #expect(try Self.state(waiting).waiting?.detail == "Postgres or SQLite?")
        let question = try #require(try await HTTP.get(h.server.base + "/api/robot/questions").json(RobotQuestionsResponse.self).questions.first)
        let answered = try await h.post("/api/robot/response", #"{"question_id":"\#(question.id)","response_text":"SQLite"}"#)
        #expect(answered.status == 200, "\(answered.text)")

        // The end: an `end` push with the final state; the registration is gone.
        try await eventually(30, "the end push") {
            try receiver.liveActivityPushes(to: Self.token).contains { Self.aps($0)?["event"]?.stringValue == "end" }
        }
        let pushes = try receiver.liveActivityPushes(to: Self.token)
        #expect(pushes.allSatisfy { $0["errors"] == .array([]) && $0["status"]?.intValue == 200 }, "\(pushes)")
        #expect(pushes.allSatisfy { $0["headers"]?.objectValue?["apns-topic"]?.stringValue == "com.example.RalphMobile.push-type.liveactivity" })
        let phases = try pushes.map { try Self.state($0).phase }
        #expect(phases.first == .running, "the first update follows the run as it is: \(phases)")
        let waitingAt = try #require(phases.firstIndex(of: .waitingForAnswer))
        #expect(phases[(waitingAt + 1)...].contains(.running), "after the answer the run goes on: \(phases)")
        #expect(phases.last == .completed && phases.filter(\.isFinal).count == 1, "\(phases)")
        let end = try #require(pushes.last)
        #expect(Self.aps(end)?["event"]?.stringValue == "end" && Self.aps(end)?["dismissal-date"]?.intValue != nil)
        #expect(end["headers"]?.objectValue?["apns-priority"]?.stringValue == "10")
        #expect(try Self.state(end).endReason == "completed")
        let stamps = pushes.compactMap { Self.aps($0)?["timestamp"]?.intValue }
        #expect(stamps.count == pushes.count && stamps == stamps.sorted(), "ActivityKit orders updates by their timestamp")
        let routine = pushes.filter { (try? Self.state($0).phase) == .running }
        #expect(routine.allSatisfy { $0["headers"]?.objectValue?["apns-priority"]?.stringValue == "5" && Self.aps($0)?["alert"] == nil })
        try await eventually(5, "the registration to be dropped") {
            try await HTTP.get(h.server.base + "/api/notifications/live-activities").json(LiveActivityRegistrationList.self).liveActivities.isEmpty
        }
        await receiver.stop()
    }

    @Test("registering: a state the activity already shows is not sent again; the next change is; a token APNs no longer knows is dropped; bad input is refused")
    func registration() async throws {
        let tmp = TemporaryDirectory("rm-live-activity-register")
        let (receiver, credentials) = try await APNsReceiver.started(in: tmp)
        let h = try await StreamHarness.start { $0.useLocalAPNs(credentials) }
        defer { h.stop() }
        let run = try await h.liveRun(appending: 2)
        let shown = LiveActivityContent.state(try await h.detail(run.id))
        let post = { (body: String) in try await HTTP.request(h.server.base + "/api/notifications/live-activities", method: .POST, body: body) }
        let created = try await post(try Self.register("session", run.id, state: shown))
        #expect(created.status == 201, "\(created.text)")
        try await Task.sleep(for: .seconds(1.5))
        #expect(try receiver.liveActivityPushes(to: Self.token).isEmpty, "the activity shows the current state already")
        run.append(1, from: 3)
        try await eventually(10, "the update after the change") { try !receiver.liveActivityPushes(to: Self.token).isEmpty }
        let update = try #require(try receiver.liveActivityPushes(to: Self.token).first)
        #expect(try Self.state(update).iteration == 3 && Self.aps(update)?["event"]?.stringValue == "update")
        // The outcome is stored once APNs has answered, just after the receiver recorded the push.
        let base = h.server.base
        try await eventually(5, "the update recorded") {
            try await HTTP.get(base + "/api/notifications/live-activities").json(LiveActivityRegistrationList.self).liveActivities.first?.updatesSent == 1
        }
        let list = try await HTTP.get(h.server.base + "/api/notifications/live-activities").json(LiveActivityRegistrationList.self)
        #expect(list.liveActivities.map(\.updatesSent) == [1] && list.liveActivities.first?.lastOutcome == "delivered")
        let sentState = try Self.state(update)
        #expect(list.liveActivities.first?.lastState == sentState)

        // APNs answers 410 for tokens starting with 00: the activity ended on the phone, the registration goes.
        let gone = String(repeating: "00", count: 32)
        #expect(try await post(try Self.register("session", run.id, token: gone)).status == 201)
        try await eventually(10, "the unknown token to be dropped") {
            let left = try await HTTP.get(h.server.base + "/api/notifications/live-activities").json(LiveActivityRegistrationList.self)
            let told = try receiver.liveActivityPushes(to: gone)
            return left.liveActivities.count == 1 && !told.isEmpty
        }

        // Bad input changes nothing.
        for (body, status, words) in [
            (try Self.register("session", run.id, token: "xyz"), 400, "push_token"),
            (try Self.register("session", "no-such-run"), 404, "session"),
            (try Self.register("conversation", "no-such-conversation"), 404, "conversation"),
            (#"{"subject":"planet","subject_id":"x","push_token":"\#(Self.token)","environment":"sandbox"}"#, 400, "subject"),
        ] {
            let refused = try await post(body)
            #expect(refused.status == status && refused.text.contains(words), "\(body) → \(refused.status) \(refused.text)")
        }
        let id = try #require(list.liveActivities.first?.id)
        let removed = try await HTTP.request(h.server.base + "/api/notifications/live-activities/\(id)", method: .DELETE)
        #expect(removed.status == 200)
        #expect(try await HTTP.request(h.server.base + "/api/notifications/live-activities/\(id)", method: .DELETE).status == 404)
        #expect(try await HTTP.get(h.server.base + "/api/notifications/live-activities").json(LiveActivityRegistrationList.self).liveActivities.isEmpty)
        await receiver.stop()
    }

    @Test("a key at its limit of Live Activities is refused a new one with words; registering a known token again is not counted")
    func limitPerKey() async throws {
        let tmp = TemporaryDirectory("rm-live-activity-limit")
        let (receiver, credentials) = try await APNsReceiver.started(in: tmp)
        let h = try await StreamHarness.start {
            $0.useLocalAPNs(credentials)
            $0.notifications.maxLiveActivitiesPerKey = 1
        }
        defer { h.stop() }
        let run = try await h.liveRun()
        let post = { (body: String) in try await HTTP.request(h.server.base + "/api/notifications/live-activities", method: .POST, body: body) }
        #expect(try await post(try Self.register("session", run.id)).status == 201)
        let refused = try await post(try Self.register("session", run.id, token: String(repeating: "ef", count: 32)))
        #expect(refused.status == 409 && refused.text.contains("already has 1 Live Activities"), "\(refused.text)")
        #expect(try await post(try Self.register("session", run.id)).status == 201, "the same token again replaces its registration")
        #expect(try await HTTP.get(h.server.base + "/api/notifications/live-activities").json(LiveActivityRegistrationList.self).liveActivities.count == 1)
        await receiver.stop()
    }

    @Test("without APNs credentials a registration is refused with what to configure")
    func withoutAPNs() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let run = try await h.liveRun()
        let refused = try await HTTP.request(
            h.server.base + "/api/notifications/live-activities", method: .POST, body: try Self.register("session", run.id))
        #expect(refused.status == 503 && refused.text.contains("--apns-key"), "\(refused.text)")
        #expect(try await HTTP.get(h.server.base + "/api/notifications/live-activities").json(LiveActivityRegistrationList.self).liveActivities.isEmpty)
    }

    @Test("the push: routine progress at priority 5 without an alert, waiting for a person and the end at priority 10")
    func pushRules() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let running = LiveActivityState(phase: .running, iteration: 2, hat: "builder")
        var next = running
        next.iteration = 3
        let routine = LiveActivityPush.make(from: running, to: next, at: now)
        #expect(routine.event == .update && !routine.urgent && routine.alert == nil)
        var asking = next
        asking.phase = .waitingForApproval
        asking.waiting = .init(what: "Bash", detail: "rm -rf build", count: 1)
        let waiting = LiveActivityPush.make(from: next, to: asking, at: now)
        #expect(waiting.urgent && waiting.alert?.title == "Waiting for approval: Bash" && waiting.alert?.body == "rm -rf build")
        var more = asking
        more.waiting?.count = 2
        #expect(!LiveActivityPush.make(from: asking, to: more, at: now).urgent, "a second approval behind the same one does not alert again")
        var done = next
        done.phase = .failed
        let end = LiveActivityPush.make(from: next, to: done, at: now)
        #expect(end.event == .end && end.urgent)
        let aps = try #require(try end.payload.objectValue?["aps"]?.objectValue)
        #expect(aps["timestamp"]?.intValue == 1_800_000_000 && aps["dismissal-date"]?.intValue == 1_800_000_000 + 900 && aps["stale-date"] == nil)
        let update = try #require(try routine.payload.objectValue?["aps"]?.objectValue)
        #expect(update["stale-date"]?.intValue == 1_800_000_000 + 900 && update["content-state"]?.objectValue?["iteration"]?.intValue == 3)
    }
}
