import Foundation
import RalphAPI
import RalphMobileKit
import Testing
import TestSupport

@testable import RalphMobilePresentation

/// The reads a screen model starts by itself (after a stream event, after a change it watches) are its own: they
/// run while it is shown, and suspending it cancels them before they change anything.
@Suite("Screen models own their tasks", .serialized)
@MainActor
struct ModelTaskOwnershipTests {
    /// The `complete` frame of a turn, as the chat's stream would carry it.
    func completeFrame() throws -> SSEParser.Event {
        let complete = CompleteEvent(turnId: "t-test", sessionId: nil, costUsd: nil, usage: TokenUsage(), durationMs: nil, stopReason: nil, messageId: nil)
        return SSEParser.Event(id: nil, event: ChatEventName.complete, data: String(decoding: try WireJSON.encode(complete), as: UTF8.self))
    }

    @Test("a chat reads its conversation again after a turn completes; suspended before that read, it reads nothing")
    func chatSuspendCancelsRefresh() async throws {
        let h = try await ChatHarness.start()
        let chat = try await ChatModelTests.open(h)
        chat.suspend()
        let before = chat.info?.title
        #expect(chat.info != nil && before != "Renamed elsewhere")
        _ = try await h.client.updateConversation(chat.conversationID, PatchConversationRequest(title: "Renamed elsewhere"))
        chat.receive(try completeFrame())
        #expect(chat.tasks.count == 1, "the refresh is the chat's own")
        chat.suspend()
        await chat.tasks.settle()
        #expect(chat.info?.title == before, "the cancelled refresh did not read the new title")
        #expect(chat.lastError == nil, "a cancellation is not an error")
        // Not suspended: the same frame's refresh runs and reads it.
        chat.receive(try completeFrame())
        await chat.tasks.settle()
        #expect(chat.info?.title == "Renamed elsewhere")
        await h.stop()
    }

    @Test("the inbox watches its approvals while started; suspending it cancels the watch and what it started")
    func inboxSuspendCancelsWatch() async throws {
        let h = try await ChatHarness.start()
        let inbox = await ApprovalsInboxTests.inbox(h)
        #expect(inbox.tasks.count >= 1, "the watch of the SDK model runs")
        inbox.suspend()
        await inbox.tasks.settle()
        #expect(inbox.tasks.count == 0)
        await inbox.resume()
        #expect(inbox.tasks.count >= 1, "resumed, it watches again")
        inbox.suspend()
        await inbox.tasks.settle()
        await h.stop()
    }
}
