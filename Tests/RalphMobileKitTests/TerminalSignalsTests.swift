import Foundation
import RalphAPI
import RalphFiles
import Testing
import TestSupport

@testable import RalphMobileKit

/// `ralph-mobile status` shows ralph 2.9–2.10's signals: guidance pending → acknowledged, waves, wave badges.
@Suite("The terminal client shows guidance acks and waves")
struct TerminalSignalsTests {
    @Test("status lists the guidance with ralph's ack, the wave as \"3 of 3 workers\", and wave events with their badge")
    func status() async throws {
        let h = try await KitHarness.start()
        let config = h.tmp.subdirectory("cli")
        let (writer, id) = try await h.writeRun(prompt: "Review in waves")
        try writer.emit(topic: "human.guidance", payload: "check the retry path")
        try writer.emit(topic: "human.guidance", payload: "keep commits small")
        try writer.emit(topic: "human.guidance.ack", payload: "Will follow: check the retry path")
        try writer.emit(topic: "human.guidance", payload: "keep commits small")
        for index in 0..<3 {
            let line = #"{"ts":"2026-06-20T10:00:00.000+00:00","iteration":2,"hat":"reviewer","topic":"review.file","payload":"f\#(index).rs","wave_id":"w-0a1b2c3d","wave_index":\#(index),"wave_total":3}"#
            try EventFileAppender.append(line: Array(line.utf8), to: writer.eventsFile)
        }
        let client = h.client
        try await eventually(5, "the lines to be read") { try await client.status(id).eventCount == 8 }
        let out = try await TerminalClientTests.cli(["status", id, "--server", h.server.base], config: config)
        #expect(out.status == 0)
        #expect(out.stdout.contains("check the retry path  acknowledged: Will follow: check the retry path"), "\(out.stdout)")
        #expect(out.stdout.contains("keep commits small  pending"))
        #expect(out.stdout.contains("1 guidance message waits for ralph's acknowledgement"))
        #expect(out.stdout.contains("Wave w-0a1b2c3d: 3 of 3 workers done  reviewer"))
        #expect(out.stdout.contains("review.file  wave 3/3"))
        await h.stop()
    }
}
