import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Agent waves (ralph 2.9+) of a run the server started in RPC mode: ralph's `wave_*` events become the detail's
/// `rpc.wave`, streamed live in the state frames, beside the events file's `wave_*` lines.
@Suite("RPC mode: agent waves")
struct RpcWaveTests {
    @Test("a wave streams as it runs (workers done, one failed) and stays in the detail once completed, in its iteration")
    func waveInTheStateFrames() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        // The wave lasts about a second (pace × 3/4), so state frames (every 100 ms) show it while it runs.
        h.config("iterations: 3\npace: 1.2\nrpc_tool_seconds: 0.05\nwave_at: 2\nwave_total: 3\nwave_fail: 1")
        let started = try await h.startRun()
        let client = try await h.stream(started.id, query: "?history=all&state=1")
        var inProgress: [RpcWave] = []
        var final: RpcWave?
        while final == nil {
            let m = try await client.nextMessage(timeout: 15)
            guard m.event == "state" else { continue }
            let detail = try WireJSON.decode(SessionDetail.self, from: Data(m.data.utf8))
            guard let wave = detail.rpc?.wave else { continue }
            if wave.completed { final = wave } else { inProgress.append(wave) }
        }
        let wave = try #require(final)
        #expect(wave.hat == "builder" && wave.workerCount == 3 && wave.iteration == 2 && wave.timeoutSecs == 300, "\(wave)")
        #expect(wave.done.map(\.index) == [0, 1, 2] && wave.done.map(\.success) == [true, false, true])
        #expect(wave.succeeded == 2 && wave.failed == 1 && (wave.durationMs ?? 0) > 0)
        #expect(!inProgress.isEmpty, "the wave was streamed while it ran")
        // While it runs, workers are done one after another (a frame may catch all three done before the wave's
        // completion arrives).
        #expect(inProgress.allSatisfy { $0.done.count <= 3 }, "\(inProgress)")
        #expect(zip(inProgress, inProgress.dropFirst()).allSatisfy { $0.done.count <= $1.done.count }, "\(inProgress)")

        try await eventually(15, "the run to complete") { try await h.status(started.id).status == .completed }
        let detail = try await HTTP.get(h.server.base + "/api/sessions/\(started.id)").json(SessionDetail.self)
        #expect(detail.rpc?.wave == wave, "the last wave stays in the detail")
    }
}
