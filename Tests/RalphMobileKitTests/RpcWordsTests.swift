import Foundation
import RalphAPI
import Testing

@testable import RalphMobileKit

@Suite("RPC words: cost, context, tool calls, acknowledgements")
struct RpcWordsTests {
    let rpc = RpcTelemetry(
        costUsd: 0.027, inputTokens: 6000, outputTokens: 600, contextWindow: 100_000, contextTokens: 60_000, currentIteration: 3,
        iterations: [RpcIteration(iteration: 1, durationMs: 10, costUsd: 0.0045, inputTokens: 1000, outputTokens: 100)],
        toolCalls: [RpcToolCall(id: "t", name: "Bash", input: .object(JSONObject([("command", .string("swift test"))])), iteration: 3, startedAt: "x")],
        acks: [RpcAck(message: "Check it", appliesTo: "current", iteration: 3, at: "x")]
    )

    @Test("each part in words")
    func words() {
        #expect(RpcWords.cost(rpc) == "$0.0270 so far (1 iteration)")
        #expect(RpcWords.context(rpc) == "60,000 of 100,000 tokens (60%)")
        #expect(RpcWords.toolCalls(rpc) == ["Bash: swift test (iteration 3)"])
        #expect(RpcWords.ack(rpc.acks[0]) == "acknowledged for this iteration (3): Check it")
        #expect(RpcWords.tokens(rpc) == "6,000 in · 600 out")
        #expect(RpcWords.context(RpcTelemetry()) == nil)
    }

    @Test("an agent wave in progress, and once completed; none without one (the web says the same: rpc-words.test.mjs)")
    func wave() {
        var wave = RpcWave(
            hat: "builder", workerCount: 3, timeoutSecs: 300, iteration: 2,
            done: [RpcWave.Worker(index: 1, success: false, durationMs: 80, preview: "b")], startedAt: "x")
        #expect(RpcWords.wave(RpcTelemetry(wave: wave)) == "wave of builder (iteration 2): 1 of 3 workers done (1 failed)")
        wave.completed = true
        (wave.succeeded, wave.failed, wave.durationMs) = (2, 1, 480)
        #expect(RpcWords.wave(RpcTelemetry(wave: wave)) == "wave of builder (iteration 2): 3 workers, 1 failed, 0.5 s")
        #expect(RpcWords.wave(rpc) == nil, "a run without waves has no wave line")
    }
}
