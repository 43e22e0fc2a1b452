import Foundation
import NIOCore
import NIOPosix
import RalphAPI
import RalphFiles

#if canImport(Glibc)
import Glibc
#endif

/// Figure 8 (issue 20): how long a person waits to be told. A RObot question (`human.interact`, the line ralph's
/// orchestrator writes) is appended to the live run's events file, stamped with CLOCK_MONOTONIC right before the
/// write; the server tails the file, sees the pending question, records it in its outbox, routes it and POSTs it to a
/// webhook device — the ``WebhookReceiver`` in this process, which stamps the request head's arrival. The figure is
/// the difference: everything from the append to the push request at the receiver (tailing, the outbox's
/// transactions, routing, composing, signing, the HTTP request).
///
/// The server runs with `--notify-fold 0`, so questions a pace apart are sent one by one instead of being held for the
/// fold window and folded into one "questions waiting" message (the dispatcher still folds what is due in one pass,
/// which happens only when it falls behind). Each new question also withdraws the previous one (`withdraw: true`, same
/// tag); withdrawals are not counted. A question told only inside a burst message counts from that message's arrival
/// (and how many did is a figure of its own). A question never told at all is lost, and a lost question fails the
/// figure: an average over what happened to arrive would hide exactly the failure this figure is for.
extension Bench {
    /// Registers `receiver` as a webhook device told about questions only (no key: the bench server runs open).
    func registerWebhook(port: Int, receiver: WebhookReceiver) throws {
        let request = RegisterDeviceRequest(
            name: "ralph-mobile-bench", channel: .webhook, kinds: [.question], webhook: WebhookTarget(url: receiver.url))
        let body = Array(try WireJSON.encode(request))
        let http = try BlockingHTTP(port: port)
        let response = try http.request(method: "POST", path: "/api/notifications/devices") { body }
        guard response.status == 201 else {
            throw BenchError("POST /api/notifications/devices answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
    }

    /// The question text of one measurement's `seq`-th question: the message's body, which is how its arrival is found.
    static func questionText(phase: Int, seq: Int) -> String {
        "bench-notify:\(phase):\(seq) Ship it with the flaky test skipped, or hold the release?"
    }

    /// Appends question `seq` of `phase` to the live run (one O_APPEND write); returns the stamp taken just before.
    func ask(fd: Int32, phase: Int, seq: Int) throws -> Int64 {
        let line = EventFileAppender.recordLine(
            topic: "human.interact", payload: Self.questionText(phase: phase, seq: seq), iteration: 1, hat: "bench") + [0x0A]
        let stamp = monotonicNanos()
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == line.count else { throw BenchError("notify: short write to the events file (errno \(errno))") }
        return stamp
    }

    /// What one measurement found: each question's latency, and how many of them arrived folded with others.
    struct NotifyFigure {
        var latency: Latency
        var folded: Int
    }

    /// `notifyWarmup` questions one at a time (each waited for: the server's HTTP client connects, its statements are
    /// prepared), then `notifyEvents` questions `notifyIntervalMs` apart; the latency of each at the receiver.
    mutating func notifyLatency(port: Int, fd: Int32, liveID: String, receiver: WebhookReceiver) async throws -> NotifyFigure {
        let phase = nextPhase()
        let warmup = options.notifyWarmup, count = options.notifyEvents
        let start = monotonicNanos()
        for seq in 0..<warmup {
            _ = try ask(fd: fd, phase: phase, seq: seq)
            let text = [Self.questionText(phase: phase, seq: seq): seq]
            let arrived = await waitUntil(timeout: 10, poll: 0.005) { !Self.firstArrivals(receiver.arrivals, texts: text, liveID: liveID).isEmpty }
            guard arrived else { throw notifyFailure("warm-up question \(seq) did not reach the webhook within 10 s", receiver: receiver, port: port) }
        }
        let measured = Array(warmup..<(warmup + count))
        var stamps: [Int: Int64] = [:]
        let interval = Int64(options.notifyIntervalMs * 1e6)
        var next = monotonicNanos()
        for seq in measured {
            stamps[seq] = try ask(fd: fd, phase: phase, seq: seq)
            next += interval
            sleepUntil(next)
        }
        let texts = Dictionary(uniqueKeysWithValues: measured.map { (Self.questionText(phase: phase, seq: $0), $0) })
        func accounted(_ all: [WebhookReceiver.Arrival]) -> Int {
            Self.firstArrivals(all, texts: texts, liveID: liveID).count + Self.folds(all, liveID: liveID, after: start).reduce(0) { $0 + ($1.message.count ?? 0) }
        }
        _ = await waitUntil(timeout: 30, poll: 0.05) { accounted(receiver.arrivals) >= count }
        let all = receiver.arrivals
        if let failure = receiver.failures.first { throw notifyFailure("the receiver refused a request: \(failure)", receiver: receiver, port: port) }
        var arrivals = Self.firstArrivals(all, texts: texts, liveID: liveID)
        // A burst message ("2 questions waiting") stands for the oldest questions not yet told, up to its count.
        var missing = measured.filter { arrivals[$0] == nil }
        var folded = 0
        for fold in Self.folds(all, liveID: liveID, after: start) {
            for _ in 0..<(fold.message.count ?? 0) {
                guard let seq = missing.first, stamps[seq]! < fold.at else { break }
                arrivals[seq] = fold
                missing.removeFirst()
                folded += 1
            }
        }
        guard missing.isEmpty else {
            throw notifyFailure(
                "\(missing.count) of \(count) questions never reached the webhook, alone or folded (seq \(missing.prefix(10).map(String.init).joined(separator: ", "))\(missing.count > 10 ? ", …" : ""))"
                    + " — a question replaced by the next one before the server read it is never announced",
                receiver: receiver, port: port)
        }
        let latency = Latency(measured.map { arrivals[$0]!.at - stamps[$0]! })
        let repeats = all.count - Set(all.map(\.message.id)).count
        let withdrawals = all.filter { $0.message.withdraw == true }.count
        note(
            "notify: \(count) questions \(fmt(options.notifyIntervalMs)) ms apart → webhook: p50 \(fmt(latency.p50)) p99 \(fmt(latency.p99)) max \(fmt(latency.max)) ms"
                + "; \(folded) arrived folded with another (the dispatcher fell behind); \(withdrawals) withdrawals so far, \(repeats) repeated deliveries")
        return NotifyFigure(latency: latency, folded: folded)
    }

    /// Each measured question's first arrival as a question of the live run (a retry of the same message counts once).
    static func firstArrivals(_ all: [WebhookReceiver.Arrival], texts: [String: Int], liveID: String) -> [Int: WebhookReceiver.Arrival] {
        var found: [Int: WebhookReceiver.Arrival] = [:]
        for arrival in all {
            let message = arrival.message
            guard message.kind == .question, message.withdraw != true, message.count == nil, message.subjectId == liveID,
                message.tag.hasPrefix("question-\(liveID)-"), let seq = texts[message.body], found[seq] == nil
            else { continue }
            found[seq] = arrival
        }
        return found
    }

    /// The burst messages about the live run's questions since `after`, in arrival order, each once: questions due in
    /// one dispatcher pass are sent as one message counting them, even with `--notify-fold 0`, when it falls behind.
    static func folds(_ all: [WebhookReceiver.Arrival], liveID: String, after: Int64) -> [WebhookReceiver.Arrival] {
        var seen: Set<String> = []
        return all.filter { arrival in
            let message = arrival.message
            return arrival.at >= after && message.kind == .question && message.count != nil && message.subjectId == liveID
                && seen.insert(message.id).inserted
        }
    }

    /// The error for a failed figure, with what the receiver got and the outcomes in the server's delivery log.
    private func notifyFailure(_ what: String, receiver: WebhookReceiver, port: Int) -> BenchError {
        let refused = receiver.failures.isEmpty ? "" : "; refused requests: \(receiver.failures.prefix(3).joined(separator: " | "))"
        return BenchError("notify: \(what) (\(receiver.arrivals.count) messages received in all\(refused); \(deliveryLog(port: port)))")
    }

    /// The server's delivery log in a line: how many attempts ended how, and the last failure's reason.
    private func deliveryLog(port: Int) -> String {
        do {
            let http = try BlockingHTTP(port: port)
            let response = try http.request(method: "GET", path: "/api/notifications/deliveries?limit=1000")
            guard response.status == 200 else { return "the delivery log answered \(response.status)" }
            let log = try WireJSON.decode(NotificationDeliveryList.self, from: Data(response.body)).deliveries
            let outcomes = Dictionary(grouping: log, by: \.outcome).map { "\($0.value.count) \($0.key)" }.sorted().joined(separator: ", ")
            let failure = log.first { $0.outcome != "delivered" }.map { "; latest not delivered: \($0.detail ?? "status \($0.status.map(String.init) ?? "none")")" }
            return "server's delivery log: \(outcomes.isEmpty ? "empty" : outcomes)\(failure ?? "")"
        } catch {
            return "the delivery log could not be read: \(error)"
        }
    }
}
