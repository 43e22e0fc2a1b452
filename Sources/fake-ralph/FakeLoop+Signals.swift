import Foundation
import RalphAPI
import RalphFiles

/// What the guidance, wave and RObot web-mode behaviours remember between iterations (``FakeLoop/signals``).
struct SignalState {
    /// How far the events file was scanned for `human.guidance` (apart from the loop's own reading).
    var guidanceOffset = 0
    /// Guidance read into the current iteration: acknowledged at the next boundary.
    var toAcknowledge: [String] = []
    /// Web-mode questions asked so far (ralph numbers them).
    var questionCount = 0
    /// The web-mode question waiting for `robot-response.json`.
    var question: [String: Any]?
    var lastResponsePoll = Date.distantPast
    var lastCheckin: Date?
    let startedAt = Date()
    /// The last iteration emit's signature and how many times in a row it came (FakeLoop+Stale).
    var lastSignature: String?
    var sameSignatureCount = 0
}

/// ralph 2.10's guidance acknowledgement and agent waves (reference §1–§2).
///
/// Guidance: a `human.guidance` line read into iteration n is acknowledged at the start of iteration n + 1 with a
/// `human.guidance.ack` line (written as the agent's `ralph emit`, saying what it will do). `LOOP_COMPLETE` is
/// refused while guidance is unacknowledged: the loop runs one more iteration that acknowledges it, then completes.
///
/// Waves: `fake_ralph.wave_at: n` and `wave_total: k` make iteration n fan its hat out to k workers, one line each
/// with the same `wave_id`, `wave_index` 0…k-1 and `wave_total` k.
extension FakeLoop {
    /// At each iteration boundary: acknowledge last iteration's guidance, note new guidance. (A scripted wave runs
    /// inside its iteration, once it began: ``runWaveIfDue(iteration:)``.)
    func signalsAtBoundary() throws {
        try acknowledgeGuidance()
        scanGuidance()
        try writeKeyedTaskIfDue(iteration: iteration + 1)
        try checkinIfDue()
    }

    /// Before `LOOP_COMPLETE`: while guidance is unacknowledged ralph refuses completion, so one more iteration
    /// acknowledges it first.
    func settleGuidanceBeforeCompletion() throws {
        scanGuidance()
        guard !signals.toAcknowledge.isEmpty else { return }
        iteration += 1
        let hat = hats[(iteration - 1) % hats.count]
        try acknowledgeGuidance()
        try record("\(hat).done", "iteration \(iteration) done by \(hat)\nLOOP_COMPLETE refused until the guidance was acknowledged", iteration: iteration, hat: hat)
    }

    private func scanGuidance() {
        let (lines, end) = writer.lines(after: signals.guidanceOffset)
        signals.guidanceOffset = end
        signals.toAcknowledge += lines.filter { $0.topic == "human.guidance" }.compactMap(\.payloadText)
    }

    private func acknowledgeGuidance() throws {
        guard !signals.toAcknowledge.isEmpty else { return }
        let text = "Will follow: " + signals.toAcknowledge.joined(separator: "; ")
        signals.toAcknowledge = []
        try writer.emit(topic: "human.guidance.ack", payload: .string(text))
    }

    /// The wave of iteration `n`, if the script has one: one events-file line per worker, and in RPC mode ralph's
    /// `wave_started`, a `wave_worker_text_delta` and a `wave_worker_done` per worker, and `wave_completed`
    /// (`wave_fail: i` makes worker i fail).
    func runWaveIfDue(iteration n: Int) throws {
        let at = Int(behaviour.number("wave_at", 0))
        let total = Int(behaviour.number("wave_total", 0))
        guard at > 0, total > 0, n == at else { return }
        let hat = hatFor(n)
        let waveID = "w-" + String(format: "%08x", UInt32.random(in: 0...UInt32.max))
        let failing = behaviour.script["wave_fail"] as? Int
        let started = Date()
        rpcPort.emit("wave_started", ["hat_name": hat, "worker_count": total, "timeout_secs": 300])
        for index in 0..<total {
            let workerStarted = Date()
            let line = JSONObject([
                ("ts", .string(Timestamp.formatRalph(Date()))), ("iteration", .int(n)), ("hat", .string(hat)), ("topic", .string("\(hat).wave")),
                ("payload", .string("worker \(index + 1) of \(total) done")), ("wave_id", .string(waveID)), ("wave_index", .int(index)),
                ("wave_total", .int(total)),
            ])
            try EventFileAppender.append(line: JSONWriter.bytes(.object(line)), to: writer.eventsFile)
            _ = sleepChecking(pace / Double(total + 1))
            rpcPort.emit("wave_worker_text_delta", ["worker_index": index, "delta": "worker \(index + 1) reviewing\n"])
            rpcPort.emit("wave_worker_done", [
                "index": index, "total": total, "duration_ms": Int(Date().timeIntervalSince(workerStarted) * 1000), "success": index != failing,
                "payload_preview": "\(hat) worker \(index + 1)",
            ])
        }
        let failed = failing.map { (0..<total).contains($0) ? 1 : 0 } ?? 0
        rpcPort.emit("wave_completed", ["succeeded": total - failed, "failed": failed, "duration_ms": Int(Date().timeIntervalSince(started) * 1000)])
    }
}
