import RalphAPI

/// How ralph's RPC events (reference §3) change what the server shows of a run.
extension RpcTelemetry {
    static let iterationLimit = 200
    static let ackLimit = 20
    static let waveWorkerLimit = 64

    /// Applies one event; returns whether anything shown changed (`text_delta` and unknown events change nothing).
    @discardableResult
    public mutating func apply(_ event: JSONObject, now: String) -> Bool {
        switch event["type"]?.stringValue {
        case "iteration_start":
            currentIteration = event["iteration"]?.intValue ?? (iterations.last?.iteration ?? 0) + 1
            currentHat = event["hat"]?.stringValue
        case "iteration_end":
            let number = event["iteration"]?.intValue ?? currentIteration ?? (iterations.last?.iteration ?? 0) + 1
            let steered = acks.contains { $0.appliesTo == "current" && $0.iteration == number }
            let ended = RpcIteration(
                iteration: number, hat: event["hat"]?.stringValue ?? currentHat, durationMs: event["duration_ms"]?.intValue ?? 0,
                costUsd: event["cost_usd"]?.doubleValue ?? 0, inputTokens: event["input_tokens"]?.intValue ?? 0,
                outputTokens: event["output_tokens"]?.intValue ?? 0, cacheReadTokens: event["cache_read_tokens"]?.intValue ?? 0,
                cacheWriteTokens: event["cache_write_tokens"]?.intValue ?? 0, contextWindow: event["context_window"]?.intValue,
                contextTokens: event["context_tokens"]?.intValue, loopCompleteTriggered: event["loop_complete_triggered"]?.boolValue ?? false,
                steered: steered
            )
            iterations.append(ended)
            if iterations.count > Self.iterationLimit { iterations.removeFirst(iterations.count - Self.iterationLimit) }
            costUsd += ended.costUsd
            inputTokens += ended.inputTokens
            outputTokens += ended.outputTokens
            cacheReadTokens += ended.cacheReadTokens
            cacheWriteTokens += ended.cacheWriteTokens
            if let window = ended.contextWindow { contextWindow = window }
            if let used = ended.contextTokens { contextTokens = used }
            currentIteration = nil
            currentHat = nil
            toolCalls.removeAll { $0.iteration == number }
        case "tool_call_start":
            guard let id = event["tool_call_id"]?.stringValue else { return false }
            toolCalls.append(
                RpcToolCall(
                    id: id, name: event["tool_name"]?.stringValue ?? "tool", input: event["input"], iteration: event["iteration"]?.intValue ?? currentIteration,
                    startedAt: now))
        case "tool_call_end":
            guard let id = event["tool_call_id"]?.stringValue else { return false }
            toolCalls.removeAll { $0.id == id }
        case "guidance_ack":
            acks.append(
                RpcAck(message: event["message"]?.stringValue ?? "", appliesTo: event["applies_to"]?.stringValue ?? "next", iteration: currentIteration, at: now)
            )
            if acks.count > Self.ackLimit { acks.removeFirst(acks.count - Self.ackLimit) }
        case "wave_started", "wave_worker_done", "wave_completed":
            return applyWave(event, now: now)
        case "loop_terminated":
            terminatedReason = event["reason"]?.stringValue ?? "unknown"
            currentIteration = nil
            currentHat = nil
            toolCalls = []
        default:
            return false
        }
        return true
    }

    /// `wave_started` {hat_name, worker_count, timeout_secs} begins a wave (replacing the last one);
    /// `wave_worker_done` {index, total, duration_ms, success, payload_preview} adds a worker; `wave_completed`
    /// {succeeded, failed, duration_ms} ends it. Worker text deltas change nothing shown.
    mutating func applyWave(_ event: JSONObject, now: String) -> Bool {
        switch event["type"]?.stringValue {
        case "wave_started":
            wave = RpcWave(
                hat: event["hat_name"]?.stringValue ?? currentHat ?? "?", workerCount: event["worker_count"]?.intValue ?? 0,
                timeoutSecs: event["timeout_secs"]?.intValue ?? 0, iteration: currentIteration, startedAt: now)
        case "wave_worker_done":
            guard var current = wave, !current.completed, let index = event["index"]?.intValue else { return false }
            if let total = event["total"]?.intValue { current.workerCount = max(current.workerCount, total) }
            current.done.removeAll { $0.index == index }
            current.done.append(
                RpcWave.Worker(
                    index: index, success: event["success"]?.boolValue ?? false, durationMs: event["duration_ms"]?.intValue ?? 0,
                    preview: String((event["payload_preview"]?.stringValue ?? "").prefix(200))))
            if current.done.count > Self.waveWorkerLimit { current.done.removeFirst(current.done.count - Self.waveWorkerLimit) }
            wave = current
        case "wave_completed":
            guard var current = wave, !current.completed else { return false }
            current.completed = true
            current.succeeded = event["succeeded"]?.intValue
            current.failed = event["failed"]?.intValue
            current.durationMs = event["duration_ms"]?.intValue
            wave = current
        default:
            return false
        }
        return true
    }
}
