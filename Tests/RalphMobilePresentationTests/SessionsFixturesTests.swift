import Foundation
import RalphAPI
import RalphMobileKit
import RalphMobilePresentation
import Testing

/// The previews' fixtures are what the real code makes of plausible server answers: checked here so a preview never
/// shows a state the app could not reach.
@Suite("Sessions fixtures for previews")
@MainActor
struct SessionsFixturesTests {
    @Test("the sample sessions decode as the server's JSON would, are newest first, and cover live, paused, complete and failed")
    func sessions() throws {
        let data = try WireJSON.encode(SessionsFixtures.sessions)
        #expect(try WireJSON.decode([Session].self, from: data) == SessionsFixtures.sessions)
        let started = SessionsFixtures.sessions.map(\.startedAt)
        #expect(started == started.sorted(by: >))
        #expect(Set(SessionsFixtures.sessions.map(\.mode)) == [.live, .paused, .complete])
        #expect(SessionsFixtures.rows.filter(\.isHidden).count == 1)
        #expect(SessionsFixtures.filterOptions.map(\.label) == ["All (4)", "Live (2)", "Done (2)"])
        #expect(SessionsFixtures.listSummary == "4 runs · 2 live · 1 hidden")
        #expect(SessionsFixtures.listHiddenToggleLabel == "Show hidden runs (1)")
        #expect(SessionsFixtures.finishedOnlySummary == "2 runs · 0 live")
        #expect(SessionsFixtures.finishedOnlyFilterOptions.map(\.label) == ["All (2)", "Live (0)", "Done (2)"])
        #expect(SessionsFixtures.liveFilteredOut == SessionsEmptyState(kind: .filteredOut, title: "No run is live right now.", message: "", action: .showAll))
        #expect(LibraryKind.prompts.filterPrompt == "Filter prompts")
    }

    @Test("the sample detail round-trips through the wire format and its recent events are events")
    func detail() throws {
        let data = try WireJSON.encode(SessionsFixtures.detail)
        var decoded = try WireJSON.decode(SessionDetail.self, from: data)
        // Codable decoding does not keep the events' key order: compare them as events, the rest as it is.
        #expect(decoded.recentEvents.compactMap(WorkflowEvent.init(json:)).map(\.topic) == SessionsFixtures.detail.recentEvents.compactMap(WorkflowEvent.init(json:)).map(\.topic))
        decoded.recentEvents = SessionsFixtures.detail.recentEvents
        #expect(decoded == SessionsFixtures.detail)
        #expect(SessionsFixtures.streamEvents.count == SessionsFixtures.recentEventsJSON.count)
        #expect(SessionsFixtures.streamEvents.map(\.id) == Array((135...142).reversed()))
    }

    @Test("every section the previews show has content (no empty state by accident)")
    func sections() {
        #expect(SessionsFixtures.tokens.emptyText == nil && SessionsFixtures.tokens.sparkline.isDrawable)
        #expect(SessionsFixtures.hatFlow.emptyText == nil)
        #expect(SessionsFixtures.backpressure.emptyText == nil)
        #expect(SessionsFixtures.iterationStats.latestNote == nil)
        #expect(SessionsFixtures.recentEvents.emptyText == nil)
        #expect(SessionsFixtures.eventStream.emptyText == nil)
        #expect(SessionsFixtures.hatsReference.note == nil)
        #expect(SessionsFixtures.question != nil)
        #expect(SessionsFixtures.endedHeader.endedText != nil)
        #expect(SessionsFixtures.modeControl().showsStop && !SessionsFixtures.modeControl(role: .operator).showsStop)
        #expect(SessionsFixtures.invalidEmitDraft.topicProblem != nil && SessionsFixtures.invalidEmitDraft.payloadProblem != nil)
        #expect(SessionsFixtures.stopConfirmation.isDestructive)
    }

    @Test("the wizard and library models for previews: filled, at the step asked, valid")
    func models() throws {
        let review = try #require(SessionsFixtures.newRunModel(step: .review))
        #expect(review.step == .review && review.request != nil)
        #expect(review.reviewRows.map(\.value) == ["workspace root", "presets/feature.yml", "prompts/json-flag.md", "20", "from the config"])
        let library = try #require(SessionsFixtures.libraryModel(kind: .hats, opened: SessionsFixtures.hatContent))
        #expect(library.shownItems.count == 3 && library.content?.sources.count == 2 && library.countText == "3 hats")
        #expect(SessionsFixtures.configContent.prefill != nil)
    }
}
