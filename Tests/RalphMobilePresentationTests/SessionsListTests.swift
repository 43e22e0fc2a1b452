import Foundation
import RalphAPI
import RalphMobileKit
import RalphMobilePresentation
import Testing
import TestSupport

@Suite("Sessions list: rows, badges, filter, hiding, connection line")
struct SessionsListRulesTests {
    let utc = TimeZone(identifier: "UTC")!
    var now: Date { SessionsFixtures.now }

    @Test("a row shows the id8 icon, task, iteration / total, hat, started, last event and workspace")
    func row() {
        let row = SessionRow(SessionsFixtures.sessions[0], now: now, timeZone: utc)
        #expect(row.iconText == "3fa2c901")
        #expect(row.title == "Add a --json flag to the export command, with tests")
        #expect(row.iterationText == "7 / 20")
        #expect(row.hat == "builder")
        #expect(row.startedText == "Feb 5, 08:39")
        #expect(row.startedRelative == "21m ago")
        #expect(row.lastEventRelative == "12s ago")
        #expect(row.workspaceText == "workspace root")
        #expect(row.mode == SessionBadge(text: "live", tone: .success, accessibilityLabel: "Live"))
        #expect(row.status == nil, "live + running says nothing new")
        #expect(row.isActive)
        #expect(row.accessibilityLabel.contains("iteration 7 of 20") && row.accessibilityLabel.contains("hat builder"))
    }

    @Test("a run without task, hat or total: (no task), no hat yet, the bare iteration, its worktree")
    func sparseRow() {
        let row = SessionRow(SessionsFixtures.sessions[3], now: now, timeZone: utc)
        #expect(row.title == "(no task)")
        #expect(row.hat == nil && row.hatText == "no hat yet")
        #expect(row.iterationText == "20 / 20")
        #expect(row.workspaceText == ".worktrees/spike")
        #expect(row.status == SessionBadge(text: "failed", tone: .danger, accessibilityLabel: "Status failed"))
        #expect(!row.isActive)
        let noTotal = SessionRow(SessionsFixtures.sessions[1], now: now, timeZone: utc)
        #expect(noTotal.iterationText == "3")
    }

    @Test("mode badges: live success, paused warning, complete neutral, an unknown mode shown as it is")
    func modeBadges() {
        #expect(SessionBadge.mode(.live).tone == .success)
        #expect(SessionBadge.mode(.paused).tone == .warning)
        #expect(SessionBadge.mode(.complete).tone == .neutral)
        #expect(SessionBadge.mode(SessionMode(rawValue: "zombie")) == SessionBadge(text: "zombie", tone: .info, accessibilityLabel: "Mode zombie"))
        #expect(SessionBadge.status(.paused, mode: .paused) == nil)
        #expect(SessionBadge.status(.running, mode: .live) == nil)
        #expect(SessionBadge.status(.stopped, mode: .complete)?.tone == .warning)
        #expect(SessionBadge.status(.completed, mode: .complete)?.tone == .success)
        #expect(SessionBadge.status(.starting, mode: .complete)?.text == "starting")
    }

    @Test("filters: live takes live, paused and starting runs; done the rest; the chips count what they would show")
    func filters() {
        let all = SessionsFixtures.sessions
        #expect(all.filter(SessionsFilter.live.includes).map(\.id) == [all[0].id, all[1].id])
        #expect(all.filter(SessionsFilter.done.includes).map(\.id) == [all[2].id, all[3].id])
        var starting = all[3]
        starting.status = .starting
        #expect(SessionsFilter.live.includes(starting))
        #expect(SessionsFilterOption.options(for: all).map(\.label) == ["All (4)", "Live (2)", "Done (2)"])
    }

    @Test("the connection line: live, connecting, reconnecting n (with polling), polling, stopped")
    func connectionLines() {
        let five = Duration.seconds(5)
        #expect(ConnectionLine.list(state: .connected, isPolling: false, pollInterval: five).text == "Live")
        #expect(ConnectionLine.list(state: .connecting, isPolling: false, pollInterval: five).showsActivity)
        let reconnecting = ConnectionLine.list(state: .reconnecting(attempt: 3), isPolling: true, pollInterval: five)
        #expect(reconnecting.text == "Reconnecting (attempt 3) · polling every 5 s")
        #expect(reconnecting.tone == .warning && reconnecting.kind == .reconnecting)
        #expect(ConnectionLine.list(state: .reconnecting(attempt: 1), isPolling: false, pollInterval: five).text == "Reconnecting (attempt 1)")
        let polling = ConnectionLine.list(state: .disconnected, isPolling: true, pollInterval: .milliseconds(2500))
        #expect(polling.kind == .polling && polling.text == "Live updates off · polling every 2.5 s")
        #expect(ConnectionLine.list(state: .disconnected, isPolling: false, pollInterval: five).kind == .offline)
        let failed = ConnectionLine.list(state: .error("the server refused the API key"), isPolling: false, pollInterval: five)
        #expect(failed.kind == .failed && failed.tone == .danger && failed.text.contains("refused"))
    }

    @Test("the hidden-ids store keeps each server's ids apart, survives a new store on the same file, and reports a broken file")
    func hiddenStore() throws {
        let tmp = TemporaryDirectory("rm-hidden")
        let file = URL(fileURLWithPath: tmp.path + "/nested/hidden.json")
        let a = HiddenSessionsStore(fileURL: file, server: "http://a:8080")
        let b = HiddenSessionsStore(fileURL: file, server: "http://b:8080")
        #expect(try a.load().isEmpty, "no file yet")
        try a.save(["1111", "2222"])
        try b.save(["3333"])
        #expect(try HiddenSessionsStore(fileURL: file, server: "http://a:8080").load() == ["1111", "2222"])
        #expect(try b.load() == ["3333"])
        try a.save([])
        #expect(try a.load().isEmpty)
        #expect(try b.load() == ["3333"], "another server's ids are kept")
        try "not json".write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: HiddenSessionsStore.Failure.self) { try a.load() }
    }
}

@Suite("Sessions list screen against the real server")
@MainActor
struct SessionsListScreenTests {
    func model(_ h: SessionsHarness, store: HiddenSessionsStore? = nil, role: Role = .admin) -> SessionsListScreenModel {
        let model = SessionsListScreenModel(client: h.client(role), hiddenStore: store)
        model.list.policy = SessionsHarness.fastPolicy
        model.list.pollInterval = .milliseconds(200)
        return model
    }

    @Test("rows are newest first and live: a new run appears, an update shows, the connection line says Live")
    func liveRows() async throws {
        let h = try await SessionsHarness.start()
        let (first, firstID) = try await h.writeRun("one", prompt: "First task")
        let m = model(h)
        await m.start()
        try await SessionsHarness.until(10, "the global stream") { m.connectionLine.kind == .live }
        #expect(m.rows().map(\.id) == [firstID])
        #expect(m.summary == "1 run · 1 live")
        try await Task.sleep(for: .milliseconds(20))
        let (second, secondID) = try await h.writeRun("two", prompt: "Second task")
        try await SessionsHarness.until(10, "the second run") { m.rows().count == 2 }
        #expect(m.rows().map(\.id) == [secondID, firstID], "newest first")
        #expect(m.rows().first?.title == "Second task")
        try first.record(topic: "build.task", payload: "go", iteration: 1, hat: "planner", triggered: "builder")
        try await SessionsHarness.until(10, "the update") { m.rows().last?.iterationText == "1" }
        #expect(m.rows().last?.hat == "builder")
        m.suspend()
        first.releaseLock()
        second.releaseLock()
        await h.stop()
    }

    @Test("swipe to hide: a hidden run leaves the rows, is remembered in the file, comes back with show hidden or unhide")
    func hiding() async throws {
        let h = try await SessionsHarness.start()
        let (a, aID) = try await h.writeRun("a")
        let (b, bID) = try await h.writeRun("b")
        let file = URL(fileURLWithPath: h.tmp.path + "/hidden.json")
        let store = HiddenSessionsStore(fileURL: file, server: h.admin.baseURL)
        let m = model(h, store: store)
        await m.start()
        m.hide(aID)
        #expect(m.rows().map(\.id) == [bID])
        #expect(m.hiddenCount == 1)
        #expect(m.summary == "2 runs · 2 live · 1 hidden")
        #expect(m.filterOptions.first?.label == "All (1)")
        #expect(m.hiddenToggleLabel == "Show hidden runs (1)")
        #expect(try store.load() == [aID])

        // A new screen on the same file remembers it.
        let again = model(h, store: store)
        await again.start()
        #expect(again.rows().map(\.id) == [bID])
        again.showHidden = true
        #expect(again.rows().map(\.id).sorted() == [aID, bID].sorted())
        #expect(again.rows().first { $0.id == aID }?.isHidden == true)
        again.unhide(aID)
        again.showHidden = false
        #expect(again.rows().count == 2)
        #expect(try store.load().isEmpty)
        #expect(again.hiddenToggleLabel == nil, "nothing hidden, switch off: no switch")

        // Everything hidden: the empty state offers to show them.
        again.hide(aID)
        again.hide(bID)
        #expect(again.emptyState(canStartRuns: true)?.kind == .allHidden)
        await again.perform(.showHidden)
        #expect(again.showHidden && again.emptyState(canStartRuns: true) == nil)
        m.suspend()
        again.suspend()
        a.releaseLock()
        b.releaseLock()
        await h.stop()
    }

    @Test("empty states: an empty server (start-run hint for admins only), a filter that matches nothing, a load failure")
    func emptyStates() async throws {
        let h = try await SessionsHarness.start()
        let m = model(h, role: .viewer)
        await m.start()
        let viewerEmpty = try #require(m.emptyState(canStartRuns: false))
        #expect(viewerEmpty.kind == .noRuns && viewerEmpty.action == nil && viewerEmpty.message.hasSuffix("there."))
        let adminEmpty = try #require(m.emptyState(canStartRuns: true))
        #expect(adminEmpty.action == .startRun && adminEmpty.message.hasSuffix("or start one here."))

        let (writer, _) = try await h.writeRun()
        await m.refresh()
        #expect(m.emptyState(canStartRuns: false) == nil)
        m.filter = .done
        let filtered = try #require(m.emptyState(canStartRuns: false))
        #expect(filtered.kind == .filteredOut && filtered.title == "No finished runs yet." && filtered.action == .showAll)
        await m.perform(.showAll)
        #expect(m.filter == .all)
        m.suspend()

        let wrongKey = try RalphClient(baseURL: h.server.base, apiKey: "not-a-key-of-this-server-0000")
        let failing = SessionsListScreenModel(client: wrongKey, hiddenStore: nil)
        await failing.refresh()
        let failure = try #require(failing.emptyState(canStartRuns: true))
        #expect(failure.kind == .loadFailed && failure.action == .retry && failure.message.contains("API key"))
        writer.releaseLock()
        await h.stop()
    }

    @Test("suspend closes the stream and stops polling; resume reads what changed meanwhile and goes live again")
    func suspendResume() async throws {
        let h = try await SessionsHarness.start()
        let (first, _) = try await h.writeRun("one")
        let m = model(h)
        await m.start()
        try await SessionsHarness.until(10, "live") { m.connectionLine.kind == .live }
        m.suspend()
        #expect(m.connectionLine.kind == .offline)
        let (second, secondID) = try await h.writeRun("two")
        try await Task.sleep(for: .milliseconds(600))
        #expect(m.rows().count == 1, "nothing is fetched while suspended")
        await m.resume()
        #expect(m.rows().first?.id == secondID, "what appeared meanwhile is there at once")
        try await SessionsHarness.until(10, "live again") { m.connectionLine.kind == .live }
        m.suspend()
        first.releaseLock()
        second.releaseLock()
        await h.stop()
    }

    @Test("while the server is away the line says reconnecting with polling; when it is back the list is live again")
    func reconnectingLine() async throws {
        let h = try await SessionsHarness.start()
        let m = model(h)
        await m.start()
        try await SessionsHarness.until(10, "live") { m.connectionLine.kind == .live }
        await h.server.stop()
        try await SessionsHarness.until(10, "reconnecting with polling") {
            m.connectionLine.kind == .reconnecting && m.connectionLine.text.contains("polling every 0.2 s")
        }
        let back = try await h.restartedServer()
        try await SessionsHarness.until(15, "live again") { m.connectionLine.kind == .live }
        m.suspend()
        await back.stop()
    }
}
