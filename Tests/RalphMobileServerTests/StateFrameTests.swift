import Foundation
import NIOCore
import RalphAPI
import Testing

@testable import RalphMobileServer

/// `GET /api/sessions/{id}/events?state=1`: the session's detail streamed as it changes, so clients stop re-fetching
/// it during a live stream.
@Suite("Session stream state frames")
struct StateFrameTests {
    static func detail(_ message: SSEMessage) throws -> SessionDetail {
        try WireJSON.decode(SessionDetail.self, from: Data(message.data.utf8))
    }

    @Test("a live stream gets the detail after its replay and after the events that change it, then a last one before end")
    func liveStream() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let (run, client, replayed) = try await h.streamedRun(appending: 3, query: "?state=1")
        #expect(replayed.map(\.line) == [1, 2, 3])
        let first = try await client.nextMessage()
        #expect(first.event == "state")
        #expect(first.id == nil, "a state frame has no id: resuming is by workflow ids only")
        let initial = try Self.detail(first)
        #expect(initial.session.id == run.id)
        #expect(initial.lineCount == 3)
        #expect(initial.session.mode == .live)

        run.append(5, from: 4)
        var lastLine = 3
        var seen: [SessionDetail] = []
        while seen.last?.lineCount != 8 {
            let message = try await client.nextMessage()
            if message.event == "workflow" {
                lastLine = try #require(message.line)
            } else {
                #expect(message.event == "state")
                let detail = try Self.detail(message)
                #expect(detail.lineCount <= lastLine, "a state never describes lines the stream has not sent yet")
                seen.append(detail)
            }
        }
        #expect(lastLine == 8)

        try run.end()
        let rest = try await client.messagesUntilClosed()
        let names = rest.map(\.event)
        #expect(names.last == "end")
        let states = rest.filter { $0.event == "state" }
        let final = try Self.detail(try #require(states.last))
        #expect(final.session.mode == .complete, "the last state shows the run over")
        #expect(names.lastIndex(of: "state")! < names.lastIndex(of: "end")!)
        let endLine = try #require(rest.last?.json["last_event_id"] as? Int)
        #expect(final.lineCount == endLine)
    }

    @Test("without ?state=1 nothing changes: no state frames")
    func optIn() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let (run, client, replayed) = try await h.streamedRun(appending: 2)
        #expect(replayed.count == 2)
        run.append(3, from: 3)
        try await Task.sleep(for: .milliseconds(300))
        try run.end()
        let rest = try await client.messagesUntilClosed()
        #expect(!rest.contains { $0.event == "state" })
        #expect(rest.last?.event == "end")
    }

    @Test("a finished run: replay, its state, end")
    func finishedRun() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let run = try await h.liveRun(appending: 4)
        try run.end()
        try await StreamHarness.waitForRun(h.server, run.id, live: false)
        let client = try await h.stream(run.id, query: "?state=1&history=all")
        let messages = try await client.messagesUntilClosed()
        let names = messages.map(\.event)
        #expect(Array(names.suffix(2)) == ["state", "end"])
        let detail = try Self.detail(messages[messages.count - 2])
        #expect(detail.session.mode == .complete)
        #expect(detail.lineCount == messages.filter { $0.event == "workflow" }.count)
    }
}

@Suite("Fan-out by key")
struct FanoutTests {
    static func frame(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    static func drain(_ queue: SubscriberQueue) async -> [String] {
        var out: [String] = []
        for item in await queue.nextBatch() {
            switch item {
            case .frame(let b), .end(let b): out.append(String(buffer: b))
            case .heartbeat: out.append("♥")
            case .catchUp(let after): out.append("catch-up after \(after)")
            }
        }
        return out
    }

    @Test("subscribing returns the head; frames at or before it are not delivered twice")
    func headAndDuplicates() async throws {
        let fanout = Fanout<String>(queueBytes: 1 << 20, queueFrames: 100)
        fanout.open("a", head: 5)
        guard case .live(let live) = fanout.subscribe("a") else { Issue.record("not live"); return }
        #expect(live.head == 5)
        fanout.publish("a", frames: [(4, Self.frame("4")), (5, Self.frame("5")), (6, Self.frame("6"))])
        #expect(await Self.drain(live.queue) == ["6"])
        #expect(fanout.head("a") == 6)
        if case .unknown = fanout.subscribe("b") {} else { Issue.record("an unknown key must say so") }
    }

    @Test("state frames go only to subscribers that asked, only while the head is what they describe")
    func stateFrames() async throws {
        let fanout = Fanout<String>(queueBytes: 1 << 20, queueFrames: 100)
        fanout.open("run", head: 2)
        guard case .live(let plain) = fanout.subscribe("run"), case .live(let stateful) = fanout.subscribe("run", wantsState: true) else {
            Issue.record("not live")
            return
        }
        #expect(fanout.stateInterest("run") == (any: true, needing: true))
        #expect(!fanout.publishState("run", frame: Self.frame("state@3"), head: 3, changed: true), "describes a line not published yet")
        #expect(fanout.publishState("run", frame: Self.frame("state@2"), head: 2, changed: false))
        #expect(fanout.stateInterest("run") == (any: true, needing: false))
        fanout.publish("run", frames: [(3, Self.frame("3"))], end: Self.frame("end"), holdEndForState: true)
        #expect(await Self.drain(plain.queue) == ["3", "end"], "one without state frames ends at once")
        #expect(fanout.publishState("run", frame: Self.frame("state@3"), head: 3, changed: true))
        fanout.endHeld("run", with: Self.frame("end"))
        #expect(await Self.drain(stateful.queue) == ["state@2", "3", "state@3", "end"], "the last state comes before end")
        if case .finished(let head, _) = fanout.subscribe("run") { #expect(head == 3) } else { Issue.record("a finished key replays and ends") }
    }

    @Test("a frame that cannot be encoded becomes a logged error frame, never an empty object")
    func encodingFailure() {
        struct Unencodable: Encodable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "no"))
            }
        }
        let text = String(buffer: SSEFrame.event(id: "7", name: "thing", value: Unencodable()))
        #expect(text.hasPrefix("event: error\ndata: {\"error\":\"encoding_failed\",\"message\":\"the server could not encode a 'thing' event"))
        #expect(!text.contains("id: 7"), "an error in place of a frame does not move the client's cursor")
    }
}
