import Foundation
import RalphAPI
import RalphFiles
import Testing

@testable import RalphMobileServer

/// ralph's RPC mode for runs the server starts (`ralph run --rpc`, with the fake-ralph double), and urgent steering.
@Suite("RPC mode: live cost and context, steer acknowledged in the current iteration")
struct RpcSteeringTests {
    func detail(_ h: SteeringHarness, _ id: String) async throws -> SessionDetail {
        try await HTTP.get(h.server.base + "/api/sessions/\(id)").json(SessionDetail.self)
    }

    @Test("an urgent steer goes as ralph's RPC steer, is acknowledged within the iteration in progress, and that iteration's record carries it")
    func urgentSteerAcknowledged() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 6\npace: 0.05\nrpc_tool_seconds: 2")
        let started = try await h.startRun()
        let stream = try await h.stream(started.id)
        let current = Locked(0)
        try await eventually(10, "an iteration with a tool call in progress") {
            let rpc = try await detail(h, started.id).rpc
            current.withLock { $0 = rpc?.currentIteration ?? 0 }
            return rpc?.currentIteration != nil && rpc?.toolCalls.isEmpty == false
        }
        let steer = try await h.post("/api/sessions/\(started.id)/steer", #"{"message":"Check the failing test first","urgent":true}"#)
        #expect(steer.status == 200, "\(steer.text)")
        let answer = try steer.json(SteerResponse.self)
        #expect(answer.status == "acknowledged" && answer.appliesTo == "current" && answer.via == "rpc")
        #expect(answer.acknowledgement == "Check the failing test first")

        var record: SSEMessage?
        while record == nil {
            let m = try await stream.nextMessage(timeout: 10)
            if (m.json["payload"] as? String)?.contains("steer: Check the failing test first") == true { record = m }
        }
        #expect(record?.json["iteration"] as? Int == current.value, "the steer landed in the iteration that was running")
        try await eventually(5, "the steered iteration in the detail") {
            let rpc = try await detail(h, started.id).rpc
            return rpc?.iterations.first { $0.iteration == current.value }?.steered == true
                && rpc?.acks.last?.appliesTo == "current" && rpc?.acks.last?.iteration == current.value
        }
        #expect(try await HTTP.request(h.server.base + "/api/sessions/\(started.id)", method: .DELETE).status == 200)
    }

    @Test("guidance for an RPC run goes as the RPC guidance command and is acknowledged for the next iteration")
    func guidanceOverRPC() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 6\npace: 0.1\nrpc_tool_seconds: 0.3")
        let started = try await h.startRun()
        let stream = try await h.stream(started.id)
        let steer = try await h.post("/api/sessions/\(started.id)/steer", #"{"message":"use the existing HTTP client"}"#)
        #expect(steer.status == 200, "\(steer.text)")
        let answer = try steer.json(SteerResponse.self)
        #expect(answer.status == "acknowledged" && answer.appliesTo == "next" && answer.via == "rpc")
        var topics: [String] = []
        var echoed = false
        while !echoed {
            let m = try await stream.nextMessage(timeout: 10)
            topics.append(m.json["topic"] as? String ?? "")
            echoed = (m.json["payload"] as? String)?.contains("guidance: use the existing HTTP client") == true
        }
        #expect(topics.contains("human.guidance"), "the events file still records the guidance")
        #expect(try await HTTP.request(h.server.base + "/api/sessions/\(started.id)", method: .DELETE).status == 200)
    }

    @Test("cost, tokens and context use arrive per iteration in the state frames; the log stays readable")
    func costAndContextPerIteration() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 3\npace: 0.05\nrpc_tool_seconds: 0.5\noutput_bytes: 200\ncontext_window: 100000")
        let started = try await h.startRun()
        let client = try await h.stream(started.id, query: "?history=all&state=1")
        var last: RpcTelemetry?
        var sawToolCall = false
        while last?.iterations.count ?? 0 < 3 {
            let m = try await client.nextMessage(timeout: 10)
            guard m.event == "state" else { continue }
            let detail = try WireJSON.decode(SessionDetail.self, from: Data(m.data.utf8))
            if detail.rpc?.toolCalls.isEmpty == false { sawToolCall = true }
            if let rpc = detail.rpc { last = rpc }
        }
        let rpc = try #require(last)
        #expect(rpc.iterations.map(\.iteration) == [1, 2, 3])
        #expect(rpc.iterations.map(\.contextTokens) == [20_000, 40_000, 60_000] && rpc.contextWindow == 100_000)
        #expect(rpc.iterations.map(\.inputTokens) == [1000, 2000, 3000] && rpc.inputTokens == 6000)
        #expect(abs(rpc.costUsd - rpc.iterations.map(\.costUsd).reduce(0, +)) < 1e-9 && rpc.costUsd > 0)
        #expect(rpc.contextUse == 0.6)
        #expect(rpc.iterations.last?.loopCompleteTriggered == true)
        #expect(sawToolCall, "a tool call in progress was streamed")
        try await eventually(10, "ralph's end over RPC") { try await detail(h, started.id).rpc?.terminatedReason == "completed" }
        let log = try await HTTP.get(h.server.base + started.log)
        #expect(log.text.contains("fake ralph agent output line") && log.text.contains("ralph: completed after 3 iterations"))
        #expect(!log.text.contains(#""type":"text_delta""#), "text deltas are written as text")
        #expect(log.text.contains(#""type":"iteration_end""#), "other events are kept as their JSON lines")
    }

    @Test("with --no-ralph-rpc a run is started without --rpc and has no rpc telemetry; guidance goes to its events file")
    func withoutRPC() async throws {
        let h = try await SteeringHarness.start { $0.ralphRPC = false }
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.1")
        let started = try await h.startRun()
        let steer = try await h.post("/api/sessions/\(started.id)/steer", #"{"message":"slower"}"#)
        let via = try steer.json(SteerResponse.self).via
        #expect(steer.status == 200 && via == "events_file")
        #expect(try await detail(h, started.id).rpc == nil)
        let urgent = try await h.post("/api/sessions/\(started.id)/steer", #"{"message":"now","urgent":true}"#)
        #expect(urgent.status == 409 && urgent.text.contains("--experimental-urgent-steer"))
        #expect(try await HTTP.request(h.server.base + "/api/sessions/\(started.id)", method: .DELETE).status == 200)
    }

    @Test("a discovered run refuses an urgent steer without --experimental-urgent-steer, and nothing is written")
    func discoveredRefuses() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.1")
        let (foreign, id) = try await h.foreignRun()
        defer { foreign.terminate() }
        let urgent = try await h.post("/api/sessions/\(id)/steer", #"{"message":"now","urgent":true}"#)
        #expect(urgent.status == 409)
        #expect(urgent.text.contains("--experimental-urgent-steer") && urgent.text.contains("without urgent"))
        #expect(!FileManager.default.fileExists(atPath: RalphLayout(workspace: h.root + "/proj").urgentSteer))
    }

    @Test("with --experimental-urgent-steer a discovered run's urgent steer writes .ralph/urgent-steer.json, which ralph delivers in the current iteration")
    func discoveredWritesFile() async throws {
        let h = try await SteeringHarness.start { $0.experimentalUrgentSteer = true }
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.3")
        let (foreign, id) = try await h.foreignRun()
        defer { foreign.terminate() }
        let stream = try await h.stream(id)
        let urgent = try await h.post("/api/sessions/\(id)/steer", #"{"message":"Stop refactoring","urgent":true}"#)
        #expect(urgent.status == 200, "\(urgent.text)")
        let answer = try urgent.json(SteerResponse.self)
        #expect(answer.status == "written" && answer.via == "urgent_steer_file" && answer.appliesTo == "current" && answer.note != nil)
        var delivered = false
        while !delivered {
            let m = try await stream.nextMessage(timeout: 10)
            delivered = (m.json["payload"] as? String)?.contains("steer: Stop refactoring") == true
        }
        #expect(!FileManager.default.fileExists(atPath: RalphLayout(workspace: h.root + "/proj").urgentSteer), "ralph took it")
    }
}
