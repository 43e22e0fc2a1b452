import Foundation
import RalphAPI
import RalphFiles
import RalphSimulator
import Testing

@testable import RalphMobileServer

@Suite("Session event stream: lossless, ordered, resumable")
struct EventStreamTests {
    @Test("events appended while a client streams arrive once each, in order, with their line numbers as ids")
    func appendWhileStreaming() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let run = try await h.liveRun(appending: 3)

        let client = try await h.stream(run.id)
        #expect(client.status == 200)
        #expect(client.headers["content-type"].first?.hasPrefix("text/event-stream") == true)
        #expect(client.headers["cache-control"].first == "no-cache")
        #expect(client.headers["x-accel-buffering"].first == "no")
        #expect(try await client.next() .isRetry(2000))
        let replayed = try await client.workflow(count: 3)
        #expect(replayed.map(\.line) == [1, 2, 3])

        // Appends while streaming, in several bursts.
        for burst in 0..<5 {
            run.append(20, from: 4 + burst * 20)
            try await Task.sleep(for: .milliseconds(10))
        }
        let live = try await client.workflow(count: 100)
        #expect(live.map(\.line) == Array(4...103))
        #expect(live.map { $0.json["payload"] as? String } == (4...103).map { "event \($0)" })
        #expect(live.allSatisfy { $0.json["topic"] as? String == "build.note" && $0.json["hat"] as? String == "builder" })
    }

    @Test("Last-Event-ID, ?after, ?history=N and ?history=all choose the replay")
    func replayCursors() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let run = try await h.liveRun(appending: 300)
        let url = h.eventsURL(run.id)

        let byHeader = try await h.resume(run.id, after: "250")
        #expect(try await byHeader.workflow(count: 50).map(\.line) == Array(251...300))
        let byQuery = try await SSETestClient.connect(url + "?after=295")
        #expect(try await byQuery.workflow(count: 5).map(\.line) == Array(296...300))
        let byDefault = try await SSETestClient.connect(url)
        #expect(try await byDefault.workflow(count: 200).first?.line == 101)
        let lastTen = try await SSETestClient.connect(url + "?history=10")
        #expect(try await lastTen.workflow(count: 10).map(\.line) == Array(291...300))
        let all = try await SSETestClient.connect(url + "?history=all")
        #expect(try await all.workflow(count: 300).map(\.line) == Array(1...300))
        let none = try await SSETestClient.connect(url + "?history=0")
        run.append(1, from: 301)
        #expect(try await none.workflow(count: 1).map(\.line) == [301])

        for bad in ["?after=-1", "?after=abc", "?history=lots"] {
            let result = try await HTTP.get(url + bad)
            #expect(result.status == 400)
            #expect(try result.json(ErrorResponse.self).prefix == .invalidParameter)
        }
        #expect(try await HTTP.get(url, headers: [("Last-Event-ID", "x1")]).status == 400)
    }

    @Test("five clients on five runs each get exactly their run's events")
    func concurrentClients() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let runs = try (0..<5).map { try LiveRun(workspace: h.root + "/proj\($0)", prompt: "run \($0)") }
        for run in runs { try await StreamHarness.waitForRun(h.server, run.id) }
        var clients: [SSETestClient] = []
        for run in runs { clients.append(try await h.stream(run.id)) }
        for round in 0..<20 {
            for (i, run) in runs.enumerated() {
                Fixture.append(Fixture.record("work", "run \(i) event \(round)", iteration: round, hat: "builder"), to: run.file)
            }
        }
        for (i, client) in clients.enumerated() {
            let messages = try await client.workflow(count: 20)
            #expect(messages.map(\.line) == Array(1...20))
            #expect(messages.map { $0.json["payload"] as? String } == (0..<20).map { "run \(i) event \($0)" })
        }
    }

    @Test("an idle stream gets heartbeat comments")
    func heartbeats() async throws {
        let h = try await StreamHarness.start() { $0.heartbeatInterval = 0.2 }
        defer { h.stop() }
        let run = try await h.liveRun()
        let client = try await h.stream(run.id)
        var comments = 0
        while comments < 2 {
            if case .comment(let text) = try await client.next(timeout: 3) {
                #expect(text == "keep-alive")
                comments += 1
            }
        }
    }

    @Test("frames are byte-exact: retry, then id/event/data lines with one-line JSON")
    func framingBytes() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let line = #"{"ts":"2026-02-05T08:18:22.668620490+00:00","iteration":5,"hat":"builder","topic":"build.done","triggered":"reviewer","payload":"multi\nline"}"#
        let objectPayload = #"{"payload":{"status":"success","n":1},"topic":"build.done","ts":"2026-02-05T09:00:00+00:00"}"#
        let id = try await h.finishedRun("p", name: "events-20260205-000000.jsonl", lines: [line, objectPayload])
        let client = try await h.stream(id)
        _ = try await client.messagesUntilClosed()
        let text = String(decoding: client.raw.value, as: UTF8.self)
        let expected =
            "retry: 2000\n\n"
            // The id is the line number and the check of the line: FNV-1a of `ts`, 0x1F and `topic` (8 hex digits).
            + "id: 1:9657f704\nevent: workflow\n"
            + #"data: {"id":"1","ts":"2026-02-05T08:18:22.668620490+00:00","iteration":5,"hat":"builder","topic":"build.done","triggered":"reviewer","payload":"multi\nline","type":"event.published"}"#
            + "\n\n"
            + "id: 2:df0a05d9\nevent: workflow\n"
            + #"data: {"id":"2","payload":"{\"status\":\"success\",\"n\":1}","topic":"build.done","ts":"2026-02-05T09:00:00+00:00","payload_json":{"status":"success","n":1},"type":"event.published"}"#
            + "\n\n"
        #expect(text.hasPrefix(expected))
        #expect(text.dropFirst(expected.count).hasPrefix("event: end\ndata: {"))
        #expect(text.hasSuffix("}\n\n"))
    }
}
