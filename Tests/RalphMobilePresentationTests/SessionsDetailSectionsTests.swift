import Foundation
import RalphAPI
import RalphMobileKit
import RalphMobilePresentation
import Testing

/// The ten sections' rules, from values (the live screen is tested against the server in SessionsDetailScreenTests).
@Suite("Session detail sections")
struct SessionsDetailSectionsTests {
    let utc = TimeZone(identifier: "UTC")!
    var now: Date { SessionsFixtures.now }
    let admin = Capabilities(role: .admin)
    let op = Capabilities(role: .operator)
    let viewer = Capabilities(role: .viewer)

    @Test("1. the header: title, id, badges, iteration, hat, elapsed, started, last event, workspace and pid")
    func header() {
        let header = StatusHeader(session: SessionsFixtures.liveSession, stopReason: nil, elapsedSeconds: 1265.4, now: now, timeZone: utc)
        #expect(header.title == "Add a --json flag to the export command, with tests")
        #expect(header.id8 == "3fa2c901" && header.fullID == "3fa2c9017b1e4d02")
        #expect(header.endedText == nil)
        #expect(header.rows.map(\.label) == ["Id", "Iteration", "Hat", "Elapsed", "Started", "Last event", "Workspace"])
        #expect(header.rows.map(\.value) == ["3fa2c901", "7 / 20", "builder", "21m 5s", "Feb 5, 08:39 · 21m ago", "12s ago · 142 events", "workspace root · pid 4242"])
        #expect(header.rows[2].hat == "builder" && header.rows[1].hat == nil)
        var untitled = SessionsFixtures.liveSession
        untitled.taskName = "  "
        #expect(StatusHeader(session: untitled, stopReason: nil, elapsedSeconds: 0, now: now, timeZone: utc).title == "Session 3fa2c901")
    }

    @Test("1. a finished run's header says why it ended; a live run's never does")
    func endedHeader() {
        let reason = StopReason(reason: "completed", message: "All tasks completed successfully.", at: "2026-02-05T06:49:00Z")
        let ended = StatusHeader(session: SessionsFixtures.sessions[2], stopReason: reason, elapsedSeconds: 2900, now: now, timeZone: utc)
        #expect(ended.endedText == "Ended: completed — All tasks completed successfully. · Feb 5, 06:49")
        #expect(ended.status?.text == "completed")
        let live = StatusHeader(session: SessionsFixtures.liveSession, stopReason: reason, elapsedSeconds: 0, now: now, timeZone: utc)
        #expect(live.endedText == nil)
    }

    @Test("2. tokens: the figures, and a sparkline normalised to 0…1 (oldest at x 0, smallest at y 0)")
    func tokens() throws {
        let section = SessionsFixtures.tokens
        #expect(section.emptyText == nil)
        #expect(section.stats.map(\.value) == ["48k", "9.6k", "120k", "8k", "$1.92", "6"])
        #expect(section.stats[0].accessibilityLabel == "Input: 48,200 tokens")
        let spark = section.sparkline
        #expect(spark.values == [2400, 3300, 3400, 4100, 3400, 1500])
        #expect(spark.minimum == 1500 && spark.maximum == 4100)
        #expect(spark.points.map(\.x) == [0, 0.2, 0.4, 0.6, 0.8, 1])
        #expect(spark.points[3].y == 1 && spark.points[5].y == 0)
        #expect(abs(spark.points[0].y - 900.0 / 2600.0) < 1e-12)
        #expect(section.sparklineCaption == "Tokens per report, last 6")
        #expect(section.sparklineAccessibilityLabel.contains("from 1,500 to 4,100, latest 1,500"))
    }

    @Test("2. a flat sparkline sits in the middle; one report draws no line; no reports shows the empty text")
    func sparklineEdges() {
        #expect(Sparkline(values: [5, 5, 5]).points.map(\.y) == [0.5, 0.5, 0.5])
        let one = TokenMetricsSection(tokens: TokenMetrics(inputTokens: 10, outputTokens: 5, reports: 1), sparklineValues: [15])
        #expect(!one.sparkline.isDrawable && one.sparklineCaption == "The sparkline appears after two usage reports.")
        let none = TokenMetricsSection(tokens: TokenMetrics(), sparklineValues: [])
        #expect(none.emptyText == "This agent reports no token usage." && none.stats.isEmpty)
        #expect(TokenMetricsSection(tokens: nil, sparklineValues: []).emptyText != nil)
        let noCost = TokenMetricsSection(tokens: TokenMetrics(inputTokens: 1, reports: 1), sparklineValues: [1])
        #expect(noCost.stats.first { $0.label == "Cost" }?.value == "—")
    }

    @Test("3. hat flow: usage chips, changes newest first, collapsed to 8 with Show all / Show fewer")
    func hatFlow() throws {
        let section = SessionsFixtures.hatFlow
        #expect(section.usage.map(\.text) == ["1 it · 8 ev", "4 it · 96 ev", "2 it · 38 ev"])
        #expect(section.summary == "5 hat changes, newest first")
        #expect(section.changes.map(\.to) == ["reviewer", "builder", "reviewer", "builder", "planner"])
        #expect(section.changes.last?.fromText == "start" && section.changes.last?.from == nil)
        #expect(section.changes.first?.detailText == "build.done · it 7 · 08:59:00")
        #expect(section.toggleLabel == nil)

        var detail = SessionsFixtures.detail
        detail.hatFlow = (1...12).map { HatTransition(from: "h\($0 - 1)", to: "h\($0)", topic: "t\($0)", at: nil, iteration: $0, eventId: $0) }
        detail.hatTransitions = 250
        let collapsed = HatFlowSection(detail: detail, expanded: false, timeZone: utc)
        #expect(collapsed.changes.map(\.id) == [12, 11, 10, 9, 8, 7, 6, 5])
        #expect(collapsed.toggleLabel == "Show all 12")
        #expect(collapsed.summary == "250 hat changes, newest first", "the server's total, not only those kept")
        let expanded = HatFlowSection(detail: detail, expanded: true, timeZone: utc)
        #expect(expanded.changes.count == 12 && expanded.toggleLabel == "Show fewer")
        #expect(HatFlowSection(detail: nil, expanded: false).emptyText == "No hat has been at work yet.")
    }

    @Test("4. backpressure: tests, lint, typecheck first (not reported when absent), then other checks; the footer")
    func backpressure() {
        let section = SessionsFixtures.backpressure
        #expect(section.checks.map(\.name) == ["tests", "lint", "typecheck", "audit"])
        #expect(section.checks.map(\.text) == ["✓ pass", "✓ pass", "✓ pass", "✗ fail"])
        #expect(section.checks.map(\.tone) == [.success, .success, .success, .danger])
        #expect(section.footer == "From build.done (event #140, iteration 7) 1m ago · 3 done · 1 blocked (blocked count 1)")
        let partial = BackpressureSection(
            Backpressure(
                tests: false, lint: nil, typecheck: true, checks: [BackpressureCheck(name: "typecheck", result: "ok", passed: true)], topic: "build.blocked",
                at: nil, iteration: 2, eventId: 9, blockedCount: nil, doneCount: 0, blockedEvents: 1), now: now)
        #expect(partial.checks.map(\.text) == ["✗ fail", "not reported", "✓ ok"])
        #expect(partial.checks[1].result == .notReported && partial.checks[2].accessibilityLabel == "typecheck: passed (ok)")
        #expect(BackpressureSection(nil).emptyText?.hasPrefix("No build.done or build.blocked yet") == true)
    }

    @Test("5. iteration stats: count, current / total, average, remaining (≈, unknown while live, — when over); latest 8 newest first")
    func iterationStats() {
        let section = SessionsFixtures.iterationStats
        #expect(section.stats.map(\.value) == ["7", "7 / 20", "2m 52s", "≈ 37m 16s"])
        #expect(section.stats[3].accessibilityLabel == "Time remaining: about 37m 16s")
        #expect(section.latest.map(\.numberText) == ["#7", "#6", "#5", "#4", "#3", "#2", "#1"])
        #expect(section.latest.first?.detailText == "— · 21 events")
        #expect(section.latest.last?.detailText == "2m 37s · 15 events")
        let loading = IterationStatsSection(stats: nil, session: SessionsFixtures.liveSession, iterations: nil)
        #expect(loading.latestNote == "Loading iterations…" && loading.stats[3].value == "unknown")
        let over = IterationStatsSection(stats: nil, session: SessionsFixtures.sessions[2], iterations: [])
        #expect(over.stats[3].value == "—" && over.latestNote == "No iteration finished yet.")
        let many = IterationStatsSection(
            stats: nil, session: nil, iterations: (1...20).map { IterationItem(number: $0, hat: nil, startedAt: "", durationSecs: 1, eventCount: 1) })
        #expect(many.latest.map(\.id) == Array((13...20).reversed()))
    }

    @Test("6. mode & control: pause while live, resume while paused, stop for admins on active runs, nothing for viewers or over")
    func modeControl() {
        let live = SessionsFixtures.sessions[0]
        let paused = SessionsFixtures.sessions[1]
        let done = SessionsFixtures.sessions[2]
        let adminLive = ModeControlSection(session: live, capabilities: admin)
        #expect(adminLive.isShown && adminLive.showsPause && !adminLive.showsResume && adminLive.showsStop && adminLive.stopNote == nil)
        let opLive = ModeControlSection(session: live, capabilities: op)
        #expect(opLive.showsPause && !opLive.showsStop && opLive.stopNote == "Stopping a run needs an admin key.")
        let opPaused = ModeControlSection(session: paused, capabilities: op)
        #expect(!opPaused.showsPause && opPaused.showsResume && !opPaused.showsStop)
        let adminPaused = ModeControlSection(session: paused, capabilities: admin)
        #expect(adminPaused.showsResume && adminPaused.showsStop)
        let adminDone = ModeControlSection(session: done, capabilities: admin)
        #expect(!adminDone.showsPause && !adminDone.showsResume && !adminDone.showsStop && adminDone.note.hasPrefix("This run is over"))
        let viewerLive = ModeControlSection(session: live, capabilities: viewer)
        #expect(!viewerLive.isShown && !viewerLive.showsPause && !viewerLive.showsStop && viewerLive.stopNote == nil)
    }

    @Test("10. actions: steer and emit for operators on active runs, answer with a pending question, export for everyone")
    func actions() {
        let live = SessionsFixtures.sessions[0]
        let done = SessionsFixtures.sessions[2]
        let opLive = ActionsSection(session: live, hasPendingQuestion: true, capabilities: op)
        #expect(opLive.showsSteer && opLive.showsEmit && opLive.showsAnswer && opLive.showsExport && opLive.note == nil)
        #expect(!ActionsSection(session: live, hasPendingQuestion: false, capabilities: op).showsAnswer)
        let viewerLive = ActionsSection(session: live, hasPendingQuestion: true, capabilities: viewer)
        #expect(!viewerLive.showsSteer && !viewerLive.showsEmit && !viewerLive.showsAnswer && viewerLive.showsExport)
        #expect(viewerLive.note?.contains("operator key") == true)
        let adminDone = ActionsSection(session: done, hasPendingQuestion: true, capabilities: admin)
        #expect(!adminDone.showsSteer && !adminDone.showsEmit && !adminDone.showsAnswer && adminDone.showsExport)
        #expect(adminDone.note == "The run is over: it takes no more guidance or events.")
    }

    @Test("7 & 8. event rows: id, topic, hat, triggered, time, a one-line preview and the whole payload when long")
    func eventRows() throws {
        let recent = SessionsFixtures.recentEvents
        #expect(recent.rows.map(\.id) == [142, 141, 140, 139, 138, 137, 136, 135])
        let done = try #require(recent.rows.first { $0.id == 140 })
        #expect(done.idText == "#140" && done.topic == "build.done" && done.hat == "builder" && done.triggeredText == "→ reviewer")
        #expect(done.timeText == "08:59:00")
        #expect(done.preview == "tests: pass lint: pass typecheck: pass" && done.isExpandable)
        let usage = try #require(recent.rows.first { $0.id == 138 })
        #expect(usage.payload.hasPrefix("{\n  \"usage\": {"))
        let short = try #require(recent.rows.first { $0.id == 136 })
        #expect(!short.isExpandable && short.preview == "swift build")
        #expect(RecentEventsSection(detail: nil).emptyText == "No events yet.")
        var many = SessionsFixtures.detail
        many.recentEvents = (1...20).map { .object(JSONObject([("id", .string(String($0))), ("topic", .string("t"))])) }
        #expect(RecentEventsSection(detail: many).rows.map(\.id) == Array((11...20).reversed()), "the latest 10")
    }

    @Test("8. the stream section: newest first, the count and reconnects, its line; ended and reset notices; waiting text")
    func streamSection() {
        let events = SessionsFixtures.streamEvents
        let live = EventStreamSection(
            events: events, eventCount: 1234, connection: .connected, reconnectAttempts: 2, end: nil, reset: nil, isActive: true)
        #expect(live.rows.first?.id == 142)
        #expect(live.countText == "1,234 events received · 2 reconnects · newest first")
        #expect(live.connection.kind == .live && live.endedText == nil && live.emptyText == nil)
        let waiting = EventStreamSection(events: [], eventCount: 0, connection: .connecting, reconnectAttempts: 0, end: nil, reset: nil, isActive: true)
        #expect(waiting.emptyText == "Waiting for events…" && waiting.connection.showsActivity)
        let end = StreamEnd(mode: .complete, status: .completed, reason: "completed", lastEventId: 9, ts: "2026-02-05T09:00:00Z")
        let ended = EventStreamSection(
            events: [], eventCount: 0, connection: .disconnected, reconnectAttempts: 0, end: end,
            reset: StreamReset(resumedAfter: "9:0000abcd", reason: "the run file was replaced", ts: ""), isActive: false)
        #expect(ended.endedText == "Run ended: completed" && ended.connection.text == "Run ended: completed")
        #expect(ended.emptyText == "This run has no events.")
        #expect(ended.resetText?.contains("the run file was replaced") == true)
        let reconnecting = EventStreamSection(
            events: events, eventCount: 8, connection: .reconnecting(attempt: 4), reconnectAttempts: 4, end: nil, reset: nil, isActive: true)
        #expect(reconnecting.connection.text == "Reconnecting (attempt 4)" && reconnecting.countText.contains("4 reconnects"))
        let flood = (1...400).reversed().compactMap { WorkflowEvent(json: .object(JSONObject([("id", .int($0)), ("topic", .string("t"))]))) }
        let capped = EventStreamSection(events: flood, eventCount: 400, connection: .connected, reconnectAttempts: 0, end: nil, reset: nil, isActive: true)
        #expect(capped.rows.count == 300 && capped.rows.first?.id == 400 && capped.rows.last?.id == 101)
        #expect(capped.countText == "400 events received · 0 reconnects · newest first, the latest 300 shown")
        let finished = EventStreamSection(events: events, eventCount: 8, connection: .disconnected, reconnectAttempts: 0, end: nil, reset: nil, isActive: false)
        #expect(finished.connection.text == "Run ended")
    }

    @Test("9. hats reference: each hat's topics and sources, the one at work, its usage; loading, errors and none")
    func hatsReference() {
        let section = SessionsFixtures.hatsReference
        #expect(section.rows.map(\.id) == ["planner", "builder", "reviewer"])
        #expect(section.rows.map(\.isAtWork) == [false, true, false])
        #expect(section.rows[1].topicsText == "triggers build.task → publishes build.done, build.blocked")
        #expect(section.rows[1].sourcesText == "from ralph.yml, presets/feature.yml")
        #expect(section.rows[1].usageText == "4 iterations in this run")
        #expect(section.rows[1].idText == nil)
        #expect(HatsReferenceSection(hats: nil, loadError: nil, currentHat: nil, usage: []).note == "Loading hats…")
        #expect(HatsReferenceSection(hats: nil, loadError: "boom", currentHat: nil, usage: []).note == "Could not load the hats: boom")
        #expect(HatsReferenceSection(hats: [], loadError: nil, currentHat: nil, usage: []).note == "The workspace config defines no hats.")
        let named = HatItem(name: "Scout", id: "scout", description: "", emoji: "🎩", color: "#fff", triggers: [], publishes: [], sources: [])
        let row = HatsReferenceSection(hats: [named], loadError: nil, currentHat: "scout", usage: []).rows[0]
        #expect(row.idText == "scout" && row.isAtWork && row.topicsText == "triggers nothing → publishes nothing" && row.sourcesText == nil)
    }

    @Test("the pending question: its text, when asked, the iteration and the time-out; the answer field for operators")
    func question() throws {
        let q = try #require(SessionsFixtures.detail.pendingQuestion)
        let card = PendingQuestionCard(question: q, capabilities: op, now: now)
        #expect(card.text == "Should --json also print the run's tokens?")
        #expect(card.detailText == "Asked 12s ago · iteration 7 · times out in 4m 48s (estimated)")
        #expect(card.canAnswer && card.note == nil)
        let seen = PendingQuestionCard(question: q, capabilities: viewer, now: now)
        #expect(!seen.canAnswer && seen.note == "An operator can answer it.")
    }
}
