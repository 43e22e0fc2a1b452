import Foundation
import Testing

import RalphAPI

extension WireSamples {
    static let rpcIteration = RpcIteration(
        iteration: 2, hat: "builder", durationMs: 1250, costUsd: 0.0125, inputTokens: 1200, outputTokens: 340, cacheReadTokens: 800,
        cacheWriteTokens: 100, contextWindow: 200_000, contextTokens: 42_000, loopCompleteTriggered: false, steered: true
    )
    static let rpcToolCall = RpcToolCall(id: "tool-2-1", name: "Bash", input: .object(JSONObject([("command", .string("swift test"))])), iteration: 3, startedAt: ts)
    static let rpcAck = RpcAck(message: "Check the failing test first", appliesTo: "current", iteration: 3, at: later)
    static let rpcTelemetry = RpcTelemetry(
        costUsd: 0.025, inputTokens: 2400, outputTokens: 680, cacheReadTokens: 1600, cacheWriteTokens: 200, contextWindow: 200_000,
        contextTokens: 42_000, currentIteration: 3, currentHat: "reviewer", iterations: [rpcIteration], toolCalls: [rpcToolCall], acks: [rpcAck],
        connected: true, terminatedReason: nil, wave: rpcWave
    )
    static let rpcWave = RpcWave(
        hat: "builder", workerCount: 3, timeoutSecs: 300, iteration: 2,
        done: [RpcWave.Worker(index: 0, success: true, durationMs: 410, preview: "builder worker 1")], completed: true, succeeded: 2, failed: 1,
        durationMs: 1320, startedAt: ts)

    /// ralph's RPC mode: the detail's `rpc` telemetry and urgent steering.
    static let rpc: [WireSample] = [
        .codable(rpcIteration),
        .codable(rpcToolCall),
        .codable(rpcAck),
        .codable(rpcWave),
        .codable(RpcWave(hat: "reviewer", workerCount: 2, timeoutSecs: 60, startedAt: ts)),
        .codable(rpcTelemetry),
        .codable(
            SessionDetail(
                session: detail.session, stopReason: nil, hatFlow: [], hatTransitions: 0, hatUsage: [], iterationStats: detail.iterationStats,
                backpressure: nil, tokens: nil, recentToolCalls: [], recentEvents: [], pendingQuestion: nil, lineCount: 7, malformedLines: 0,
                rpc: rpcTelemetry
            )
        ),
        .codable(SteerRequest(message: "Check the failing test first", urgent: true)),
        .codable(
            SteerResponse(
                status: "acknowledged", deliveredAt: ts, id: "", appliesTo: "current", via: "rpc", acknowledgement: "Check the failing test first",
                note: nil
            )
        ),
    ]
}
