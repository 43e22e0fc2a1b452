import Foundation
import Logging
import RalphAPI
import Testing

@testable import RalphMobileServer

/// A request's id reaches the log lines of the work it caused, not only the request's own line (issue 26).
@Suite("Request ids in the logs of the work a request caused")
struct RequestTraceTests {
    @Test("the message that starts the agent: its id is on the process's start and exit lines, and no other request's is")
    func conversationWork() async throws {
        let recorder = LogRecorder()
        let f = try await ChatFixture.start(logger: recorder.logger(metadataProvider: RequestTrace.metadataProvider)) { $0.chatIdleStop = 1 }
        defer { Task { await f.stop() } }
        let created = try await f.request(
            .POST, "/api/conversations", f.json(CreateConversationRequest(title: nil, cwd: "app", backend: nil)),
            headers: f.headers + [("X-Request-Id", "trace-create-1")])
        #expect(created.status == 201, "\(created.text)")
        let c = try created.json(Conversation.self)
        let stream = try await f.events(c.id)
        let sent = try await f.request(
            .POST, "/api/conversations/\(c.id)/messages", f.json(SendMessageRequest(text: model(["say traced"]), mode: nil)),
            headers: f.headers + [("X-Request-Id", "trace-send-1")])
        #expect(sent.status == 202, "\(sent.text)")
        _ = try await stream.messages(until: "complete", timeout: 30)

        @Sendable func lines(_ text: String) -> [LogRecorder.Entry] {
            recorder.messages.filter { $0.message.hasPrefix("conversation \(c.id): ") && $0.message.contains(text) }
        }
        // The process stops once idle (chatIdleStop), in a task the message's step started: its exit is that work too.
        try await eventually(15, "the agent's start and exit lines") { !lines(" started").isEmpty && !lines(" exited").isEmpty }
        for entry in lines(" started") + lines(" exited") {
            #expect(entry.metadata["request_id"] == "trace-send-1", "\(entry.message): \(entry.metadata)")
        }
        // Lines logged with no request under way carry none.
        recorder.logger(metadataProvider: RequestTrace.metadataProvider).info("conversation \(c.id): outside any request")
        #expect(lines("outside any request").first?.metadata["request_id"] == nil)
    }
}
