import Foundation
import RalphAPI
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The outbox survives a crash: the real `ralph-mobile-server` executable is killed with SIGKILL between a
/// notification's first (failed) attempt and its retry (or a Live Activity's change and its update), and started
/// again on the same data directory.
@Suite("Notifications: kill -9 between the event and the delivery", .serialized)
struct NotificationCrashTests {
    @Test("a run's end whose delivery had not succeeded when the server was killed is delivered once after the restart")
    func deliveredOnceAfterKill() async throws {
        let receiver = try await PushReceiver.start()
        let tmp = TemporaryDirectory("rm-notify-crash")
        let root = tmp.subdirectory("root")
        let workspace = tmp.subdirectory("root/proj")
        let data = tmp.subdirectory("data")
        let secret = "crash-secret-0123456789"
        let url = try await receiver.webhook(secret: secret)
        // The first attempt fails; the retry would come a second later, but the server is killed first.
        try await receiver.script(URL(string: url)!.path, statuses: [503])
        let arguments = ["--port", "0", "--data-dir", data, "--notify-fold", "0", "--workspace", root]

        let first = try Executable.Server(arguments)
        let base = "http://127.0.0.1:\(try await first.port())"
        let registered = try await HTTP.request(
            base + "/api/notifications/devices", method: .POST,
            body: #"{"name":"hook","channel":"webhook","kinds":["run_finished"],"webhook":{"url":"\#(url)","secret":"\#(secret)"}}"#)
        #expect(registered.status == 201, "\(registered.text)")
        Fixture.run(in: workspace, name: "events-20261123-120000.jsonl", lines: [
            Fixture.record("task.start", "Crash test", iteration: 0, hat: "loop"),
            Fixture.terminate("completed", iterations: 1),
        ])
        _ = try await receiver.wait("the first attempt", timeout: 20) { $0.contains { $0.channel == "webhook" } }
        kill(first.process.processIdentifier, SIGKILL)
        try await eventually(10, "the killed server to be gone") { !first.process.isRunning }
        #expect(try await receiver.received().filter { $0.channel == "webhook" }.map(\.status) == [503], "killed before its retry")

        let second = try Executable.Server(arguments)
        defer { second.stop() }
        let again = "http://127.0.0.1:\(try await second.port())"
        let delivered = try await receiver.wait("the delivery after the restart", timeout: 20) { $0.contains { $0.channel == "webhook" && $0.status == 200 } }
        // Nothing more comes: the restart rediscovered the run, and its notification (same key) was not recorded again.
        try await Task.sleep(for: .seconds(3))
        let hooks = try await receiver.received().filter { $0.channel == "webhook" }
        #expect(hooks.map(\.status) == [503, 200])
        #expect(Set(hooks.map { $0.headers["Idempotency-Key"] ?? "" }).count == 1, "the retry after the restart is the same delivery")
        #expect(try delivered.first { $0.status == 200 }?.message().kind == .runFinished)
        let log = try await HTTP.get(again + "/api/notifications/deliveries").json(NotificationDeliveryList.self)
        #expect(log.deliveries.map(\.outcome) == ["delivered", "retrying"])
    }

    @Test("a Live Activity whose run changed while the server was down (killed with SIGKILL) is updated once after the restart")
    func liveActivityUpdatedAfterKill() async throws {
        let tmp = TemporaryDirectory("rm-live-activity-crash")
        let (receiver, apns) = try await APNsReceiver.started(in: tmp)
        let root = tmp.subdirectory("root")
        let data = tmp.subdirectory("data")
        let run = try LiveRun(workspace: root + "/proj")
        run.append(2)
        let arguments = [
            "--port", "0", "--data-dir", data, "--workspace", root, "--apns-key", apns.keyFile, "--apns-key-id", apns.keyID, "--apns-team-id",
            apns.teamID, "--apns-topic", apns.topic, "--apns-host", apns.hostOverride!, "--apns-ca", apns.trustRootsFile!,
        ]
        let first = try Executable.Server(arguments)
        let base = "http://127.0.0.1:\(try await first.port())"
        try await eventually(10, "the run to be listed") { try await HTTP.get(base + "/api/sessions/\(run.id)").status == 200 }
        let shown = LiveActivityContent.state(try await HTTP.get(base + "/api/sessions/\(run.id)").json(SessionDetail.self))
        let body = try LiveActivityTests.register("session", run.id, state: shown)
        #expect(try await HTTP.request(base + "/api/notifications/live-activities", method: .POST, body: body).status == 201)
        kill(first.process.processIdentifier, SIGKILL)
        try await eventually(10, "the killed server to be gone") { !first.process.isRunning }
        run.append(1, from: 3)
        #expect(try receiver.liveActivityPushes(to: LiveActivityTests.token).isEmpty, "nothing changed while the first server ran")

        let second = try Executable.Server(arguments)
        defer { second.stop() }
        _ = try await second.port()
        try await eventually(20, "the update after the restart") { try !receiver.liveActivityPushes(to: LiveActivityTests.token).isEmpty }
        try await Task.sleep(for: .seconds(3))
        let pushes = try receiver.liveActivityPushes(to: LiveActivityTests.token)
        #expect(pushes.count == 1 && pushes.allSatisfy { $0["errors"] == .array([]) }, "\(pushes)")
        #expect(try LiveActivityTests.state(try #require(pushes.first)).iteration == 3)
        await receiver.stop()
    }
}
