import Foundation
import RalphAPI
import RalphMobileKit
import Testing

@Suite("Session signals: the words for guidance, waves and check-ins")
struct SessionSignalsTests {
    @Test("guidance reads pending, then acknowledged with ralph's words; the summary says completion waits")
    func guidance() {
        let pending = GuidanceItem(text: "use retries", sentAt: nil, eventId: 3, state: .pending)
        var acked = pending
        acked.state = .acknowledged
        acked.ack = "Will follow: use retries"
        #expect(SessionSignals.guidanceState(pending) == "pending")
        #expect(SessionSignals.guidanceState(acked) == "acknowledged: Will follow: use retries")
        #expect(SessionSignals.guidanceSummary([]) == nil)
        #expect(SessionSignals.guidanceSummary([acked]) == "The guidance was acknowledged.")
        #expect(SessionSignals.guidanceSummary([pending, acked])?.hasPrefix("1 guidance message waits") == true)
    }

    @Test("waves read \"2 of 3 workers\"; a wave line's badge is 1-based")
    func waves() throws {
        let wave = WaveGroup(
            id: "w-0a1b2c3d", total: 3, done: 2, indices: [0, 1], hats: ["reviewer"], iteration: 4, events: 2, firstEventId: 5, lastEventId: 6,
            startedAt: nil, lastAt: nil
        )
        #expect(SessionSignals.waveTitle(wave) == "Wave w-0a1b2c3d: 2 of 3 workers so far")
        let event = try #require(WorkflowEvent(data: #"{"id":"5","topic":"review.file","wave_id":"w-1","wave_index":1,"wave_total":3}"#))
        #expect(SessionSignals.waveBadge(event) == "wave 2/3")
        #expect(SessionSignals.waveBadge(try #require(WorkflowEvent(data: #"{"id":"6","topic":"build.done"}"#))) == nil)
        #expect(
            SessionSignals.checkinLine(RobotCheckin(iteration: 7, elapsedSeconds: 840, loopId: nil, timestamp: nil, currentHat: "builder"))
                == "RObot check-in: iteration 7 · hat builder · 840 s in"
        )
    }
}
