import Foundation
import RalphAPI
import RalphMobileKit
import RalphSimulator
import Testing
import TestSupport

@testable import RalphMobilePresentation

/// A feed that records what the registry asks of it.
@MainActor
final class RecordingFeed: LiveFeed {
    let name: String
    var log: [String]
    private(set) var open = true
    /// Run while resuming (before it counts as open again).
    var duringResume: (@MainActor () -> Void)?

    init(_ name: String, log: [String] = []) {
        self.name = name
        self.log = log
    }

    func suspend() {
        open = false
        log.append("suspend")
    }

    func resume() async {
        duringResume?()
        open = true
        log.append("resume")
    }

    var isLive: Bool { open }

    /// A screen closing its own stream.
    func close() { open = false }
}

@Suite("The live feeds registry")
@MainActor
struct LiveFeedsRegistryTests {
    @Test("background suspends the live feeds, foreground resumes exactly those; registering twice counts once")
    func backgroundAndForeground() async {
        let feeds = LiveFeeds()
        let a = RecordingFeed("a")
        let b = RecordingFeed("b")
        let closed = RecordingFeed("closed")
        closed.close()
        feeds.register(a)
        feeds.register(a)
        feeds.register(b)
        feeds.register(closed)
        #expect(feeds.count == 3)

        feeds.enterBackground()
        #expect(feeds.isInBackground)
        #expect(a.log == ["suspend"] && b.log == ["suspend"])
        #expect(closed.log.isEmpty, "a feed its screen closed is left alone")
        feeds.enterBackground()
        #expect(a.log == ["suspend"], "suspended once")

        await feeds.enterForeground()
        #expect(!feeds.isInBackground)
        #expect(a.log == ["suspend", "resume"] && b.log == ["suspend", "resume"])
        #expect(closed.log.isEmpty, "not reopened behind its screen's back")
        await feeds.enterForeground()
        #expect(a.log == ["suspend", "resume"], "resumed once")
    }

    @Test("a feed registered in the background is suspended at once and resumed with the others")
    func registeredInBackground() async {
        let feeds = LiveFeeds()
        feeds.enterBackground()
        let late = RecordingFeed("late")
        feeds.register(late)
        #expect(late.log == ["suspend"])
        await feeds.enterForeground()
        #expect(late.log == ["suspend", "resume"])
    }

    @Test("feeds are held weakly: a screen's model that is gone is forgotten")
    func weak() {
        let feeds = LiveFeeds()
        var gone: RecordingFeed? = RecordingFeed("gone")
        let kept = RecordingFeed("kept")
        feeds.register(gone!)
        feeds.register(kept)
        #expect(feeds.count == 2)
        gone = nil
        #expect(feeds.count == 1)
        #expect(feeds.feeds.first === kept)
        feeds.unregister(kept)
        #expect(feeds.count == 0)
    }

    @Test("closeAll suspends every feed and forgets them: nothing reopens on return")
    func closeAll() async {
        let feeds = LiveFeeds()
        let a = RecordingFeed("a")
        feeds.register(a)
        feeds.closeAll()
        #expect(a.log == ["suspend"])
        #expect(feeds.count == 0)
        feeds.enterBackground()
        await feeds.enterForeground()
        #expect(a.log == ["suspend"])
    }

    @Test("back to the background while resuming: the feeds not resumed yet stay suspended and reopen next time")
    func backgroundDuringResume() async {
        let feeds = LiveFeeds()
        let all = (0..<3).map { RecordingFeed("f\($0)") }
        for feed in all { feeds.register(feed) }
        feeds.enterBackground()
        // Whichever feed resumes first sends the app back to the background.
        var sent = false
        for feed in all {
            feed.duringResume = {
                guard !sent else { return }
                sent = true
                feeds.enterBackground()
            }
        }
        await feeds.enterForeground()
        #expect(feeds.isInBackground)
        #expect(all.allSatisfy { !$0.isLive }, "everything is closed again: \(all.map(\.log))")
        for feed in all { feed.duringResume = nil }
        await feeds.enterForeground()
        #expect(all.allSatisfy { $0.isLive && $0.log.last == "resume" }, "\(all.map(\.log))")
    }
}

@Suite("The SDK's models as live feeds, against the real server", .serialized)
@MainActor
struct AppLiveFeedTests {
    /// The session screen's model, the feed the app registers for a session (its monitor holds the stream).
    static func screen(_ h: AppHarness, _ id: String) throws -> SessionDetailScreenModel {
        let screen = SessionDetailScreenModel(client: try h.client(), sessionID: id, capabilities: Capabilities(role: .admin))
        screen.monitor.policy = AppHarness.fastPolicy
        return screen
    }

    /// The ids shown are exactly 1…n, newest first: every event once, none missing.
    static func expectComplete(_ monitor: SessionMonitor, _ n: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(monitor.events.map(\.id) == Array((1...n).reversed()), sourceLocation: sourceLocation)
        #expect(monitor.eventCount == n, sourceLocation: sourceLocation)
    }

    @Test("a session screen suspended while its run writes events shows every event once, with no gap, on return")
    func sessionMonitorNoGap() async throws {
        let h = try await AppHarness.start()
        defer { Task { await h.stop() } }
        let (writer, id) = try await h.writeRun()
        for i in 1...3 { try writer.record(topic: "build.step", payload: "before \(i)", iteration: i, hat: "builder") }
        let feeds = LiveFeeds()
        let screen = try Self.screen(h, id)
        let m = screen.monitor
        await screen.start()
        feeds.register(screen)
        try await AppHarness.until(10, "the first 4 events") { m.connection == .connected && m.eventCount == 4 }

        feeds.enterBackground()
        #expect(!m.isStreaming && m.connection == .disconnected)
        for i in 1...5 { try writer.record(topic: "build.step", payload: "away \(i)", iteration: 3 + i, hat: "builder") }
        try await Task.sleep(for: .milliseconds(700))
        #expect(m.eventCount == 4, "nothing arrives while suspended")

        await feeds.enterForeground()
        try await AppHarness.until(10, "the events written while away") { m.eventCount == 9 }
        #expect(m.isStreaming)
        Self.expectComplete(m, 9)
        #expect(m.events.first?.payload == "away 5")

        // Still live: the next event arrives once.
        try writer.record(topic: "build.step", payload: "after", iteration: 9, hat: "builder")
        try await AppHarness.until(10, "the event after return") { m.eventCount == 10 }
        try await Task.sleep(for: .milliseconds(300))
        Self.expectComplete(m, 10)
        screen.suspend()
        writer.releaseLock()
    }

    @Test("a run that ended while the app was away: its last events and its end are shown on return, once")
    func sessionEndedWhileSuspended() async throws {
        let h = try await AppHarness.start()
        defer { Task { await h.stop() } }
        let (writer, id) = try await h.writeRun()
        try writer.record(topic: "build.step", payload: "seen", iteration: 1, hat: "builder")
        let feeds = LiveFeeds()
        let screen = try Self.screen(h, id)
        let m = screen.monitor
        await screen.start()
        feeds.register(screen)
        try await AppHarness.until(10, "the first events") { m.connection == .connected && m.eventCount == 2 }

        feeds.enterBackground()
        for i in 1...3 { try writer.record(topic: "build.step", payload: "away \(i)", iteration: 1 + i, hat: "builder") }
        try writer.terminate(reason: "completed", status: "done", iterations: 4, exitCode: 0)
        let client = try h.client()
        try await eventually(10, "the run to complete") { try await client.status(id).mode == .complete }

        await feeds.enterForeground()
        // The events written meanwhile are read from where it stopped, then the end closes that stream.
        try await AppHarness.until(10, "the catch-up to its end") { m.eventCount == 6 && !m.isStreaming }
        #expect(m.end != nil)
        #expect(m.session?.mode == .complete)
        Self.expectComplete(m, 6)
        #expect(m.events.first?.topic == "loop.terminate")
        #expect(m.events.map(\.payload).contains("away 2"))
    }

    @Test("the sessions list suspended while a run starts shows it on return")
    func sessionsList() async throws {
        let h = try await AppHarness.start()
        defer { Task { await h.stop() } }
        let (first, firstID) = try await h.writeRun("one")
        let feeds = LiveFeeds()
        let list = SessionsListModel(client: try h.client())
        list.policy = AppHarness.fastPolicy
        list.pollInterval = .milliseconds(200)
        await list.start()
        feeds.register(list)
        try await AppHarness.until(10, "connected") { list.connection == .connected }
        #expect(list.sessions.map(\.id) == [firstID])

        feeds.enterBackground()
        #expect(!list.isLive)
        let (second, secondID) = try await h.writeRun("two")
        try await Task.sleep(for: .milliseconds(600))
        // A stopped list neither streams nor polls (its cancelled stream task no longer starts polling).
        #expect(list.sessions.map(\.id) == [firstID], "neither streamed nor polled while away")

        await feeds.enterForeground()
        #expect(Set(list.sessions.map(\.id)) == [firstID, secondID])
        try await AppHarness.until(10, "connected again") { list.connection == .connected }
        list.stop()
        first.releaseLock()
        second.releaseLock()
    }

    @Test("a conversation suspended while a turn runs shows its messages once on return")
    func conversation() async throws {
        let h = try await AppHarness.start(chat: true)
        defer { Task { await h.stop() } }
        let client = try h.client()
        let id = try await h.newConversation()
        let model = ConversationModel(client: client, conversationID: id)
        model.policy = AppHarness.fastPolicy
        await model.load()
        let feeds = LiveFeeds()
        feeds.register(model)
        try await AppHarness.until(10, "connected") { model.connection == .connected }

        feeds.enterBackground()
        #expect(model.connection == .disconnected)
        _ = try await client.sendMessage(id, text: "hello while away")
        try await eventually(20, "the reply stored") { try await client.messages(id).items.count == 2 }
        #expect(model.messages.isEmpty, "nothing arrives while suspended")

        await feeds.enterForeground()
        try await AppHarness.until(10, "connected again") { model.connection == .connected }
        #expect(model.messages.map(\.text) == ["hello while away", "Echo: hello while away"])
        #expect(model.streamingText.isEmpty)

        // The stream resumed after the last event of the page: the next turn arrives once.
        #expect(await model.send("and now") != nil)
        try await AppHarness.until(20, "the next reply") { model.messages.count == 4 && !model.isBusy }
        #expect(model.messages.map(\.text) == ["hello while away", "Echo: hello while away", "and now", "Echo: and now"])
        model.disconnect()
    }

    @Test("the approvals list suspended while a tool call waits shows it on return; auto-reply following resumes")
    func approvalsAndAutoReply() async throws {
        let h = try await AppHarness.start(chat: true)
        defer { Task { await h.stop() } }
        let client = try h.client()
        let id = try await h.newConversation()
        let feeds = LiveFeeds()
        let approvals = ApprovalsModel(client: client)
        approvals.policy = AppHarness.fastPolicy
        await approvals.start()
        feeds.register(approvals)
        let autoReply = AutoReplyModel(client: client, conversationID: id)
        autoReply.policy = AppHarness.fastPolicy
        await autoReply.load()
        autoReply.follow()
        feeds.register(autoReply)
        try await AppHarness.until(10, "connected") { approvals.connection == .connected && autoReply.connection == .connected }

        feeds.enterBackground()
        #expect(approvals.connection == .disconnected && !autoReply.isFollowing)
        _ = try await client.sendMessage(id, text: TestSupport.model(["bash touch away.txt"], ["say Done."]))
        try await eventually(20, "the approval") { try await client.approvals(state: .pending).count == 1 }
        #expect(approvals.pending.isEmpty, "nothing arrives while suspended")

        await feeds.enterForeground()
        #expect(approvals.pending.count == 1)
        #expect(approvals.pending.first?.toolName == "Bash")
        #expect(autoReply.isFollowing)
        try await AppHarness.until(10, "connected again") { approvals.connection == .connected && autoReply.connection == .connected }
        let pending = try #require(approvals.pending.first)
        #expect(await approvals.decide(pending.id, .deny, message: "not now"))
        approvals.stop()
        autoReply.stopFollowing()
    }
}
