import Foundation
import RalphAPI
import RalphMobileKit
import RalphMobilePresentation
import Testing

/// The detail's guidance, waves and check-in section (ralph 2.9–2.10), from values.
@Suite("Session detail: guidance, waves, check-in")
struct SessionsSignalsSectionTests {
    let utc = TimeZone(identifier: "UTC")!

    func detail(guidance: [GuidanceItem] = [], waves: [WaveGroup] = [], checkin: RobotCheckin? = nil) -> SessionDetail {
        var d = SessionsFixtures.detail
        d.guidance = guidance
        d.waves = waves
        d.checkin = checkin
        return d
    }

    @Test("guidance rows: newest first, pending then acknowledged with ralph's words; the summary says completion waits")
    func guidance() {
        let acked = GuidanceItem(
            text: "use retries", sentAt: "2026-02-05T08:39:00Z", eventId: 3, state: .acknowledged, ack: "Will follow: use retries", ackedAt: nil,
            ackEventId: 5
        )
        let pending = GuidanceItem(text: "add tests", sentAt: "2026-02-05T08:40:00Z", eventId: 7, state: .pending)
        let section = SignalsSection(detail: detail(guidance: [acked, pending]), timeZone: utc)
        #expect(section.guidance.map(\.id) == [7, 3])
        #expect(section.guidance[0].isPending && section.guidance[0].stateText == "Pending" && section.guidance[0].ackText == nil)
        #expect(section.guidance[1].stateText == "Acknowledged" && section.guidance[1].ackText == "Will follow: use retries")
        #expect(section.guidance[1].sentText == "08:39:00")
        #expect(section.guidance[1].accessibilityLabel == "Guidance: use retries. Acknowledged. ralph: Will follow: use retries")
        #expect(section.guidanceSummary?.hasPrefix("1 guidance message waits for ralph's acknowledgement") == true)
        #expect(!section.isEmpty)
    }

    @Test("waves: \"2 of 3 workers\", progress, hats and where they are; the check-in line; an empty section hides")
    func waves() {
        let wave = WaveGroup(
            id: "w-0a1b2c3d", total: 3, done: 2, indices: [0, 1], hats: ["reviewer"], iteration: 4, events: 2, firstEventId: 20, lastEventId: 21,
            startedAt: nil, lastAt: nil
        )
        let section = SignalsSection(
            detail: detail(waves: [wave], checkin: RobotCheckin(iteration: 7, elapsedSeconds: 840, loopId: "l", timestamp: nil, currentHat: "builder")),
            timeZone: utc
        )
        #expect(section.waves.first?.title == "Wave w-0a1b2c3d: 2 of 3 workers so far")
        #expect(section.waves.first?.progress == 2.0 / 3.0 && section.waves.first?.hats == ["reviewer"])
        #expect(section.waves.first?.detailText == "iteration 4 · events #20–#21")
        #expect(section.checkinText == "RObot check-in: iteration 7 · hat builder · 840 s in")
        #expect(SignalsSection(detail: detail(), timeZone: utc).isEmpty)
        #expect(SignalsSection(detail: nil).isEmpty)
    }

    @Test("an event of a wave says which worker it is; a web-mode question says how it was asked")
    func waveRowAndWebQuestion() throws {
        let event = try #require(WorkflowEvent(data: #"{"id":"20","topic":"review.file","hat":"reviewer","wave_id":"w-1","wave_index":0,"wave_total":3}"#))
        let row = EventRow(event, timeZone: utc)
        #expect(row.waveText == "wave 1/3" && row.accessibilityLabel.contains("wave 1/3"))
        var question = try #require(SessionsFixtures.detail.pendingQuestion ?? nil)
        question.source = "web"
        let card = PendingQuestionCard(question: question, capabilities: Capabilities(role: .operator), now: SessionsFixtures.now)
        #expect(card.detailText.hasSuffix(" · asked through RObot web mode"))
    }
}
