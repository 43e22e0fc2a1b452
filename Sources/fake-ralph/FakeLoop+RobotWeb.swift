import Foundation
import RalphAPI
import RalphFiles

/// RObot's file-backed web mode (ralph 2.10, reference §2): config `RObot: {enabled: true, mode: web,
/// timeout_seconds, checkin_interval_seconds}`.
///
/// When the agent emits `human.interact`, ralph writes `.ralph/api/robot-question.json` atomically and polls
/// `.ralph/api/robot-response.json` every 250 ms for an answer matching the question's `id` (or `question_id`),
/// `loop_id` and `response_token` (or `token`), the text under `response`, `message`, `text` or `payload`. Stale
/// responses are deleted, half-written ones ignored; the answer is appended to the events file as `human.response`.
/// With `checkin_interval_seconds`, `.ralph/api/robot-checkin.json` is rewritten that often.
extension FakeLoop {
    var robotSettings: [String: Any] { behaviour.section("RObot") ?? [:] }
    /// RObot enabled in web mode: questions go through `.ralph/api/`, not the events file.
    var robotWebMode: Bool { robotSettings["enabled"] as? Bool == true && robotSettings["mode"] as? String == "web" }

    /// After every line: a `human.interact` in web mode also becomes the question file.
    func afterRecord(_ topic: String, _ payload: String, iteration: Int, hat: String) throws {
        guard topic == "human.interact", robotWebMode else { return }
        if let question = signals.question, question["loop_id"] as? String == loopID {
            // ralph reuses an existing question of the same loop.
            try writeJSON(question, to: layout.robotQuestion)
            return
        }
        signals.questionCount += 1
        let id = signals.questionCount
        let micros = Int(Date().timeIntervalSince1970 * 1_000_000)
        let question: [String: Any] = [
            "id": id, "response_token": "\(loopID)-\(id)-\(micros)", "payload": payload, "payload_json": ["question": payload], "hat": hat,
            "iteration": iteration, "loop_id": loopID, "timestamp": Timestamp.now(), "timeout_seconds": Int(behaviour.robotTimeout),
        ]
        signals.question = question
        try writeJSON(question, to: layout.robotQuestion)
    }

    /// The answer to the waiting web question, once `robot-response.json` carries a matching one (then also
    /// appended to the events file as `human.response`); nil while there is none.
    func webAnswer() throws -> String? {
        try checkinIfDue()
        guard let question = signals.question, Date().timeIntervalSince(signals.lastResponsePoll) >= 0.25 else { return nil }
        signals.lastResponsePoll = Date()
        let path = layout.robotResponse
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        // Half-written: ignored until it is whole.
        guard let response = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
        let id = (response["id"] ?? response["question_id"]) as? Int
        let token = (response["response_token"] ?? response["token"]) as? String
        guard id == question["id"] as? Int, response["loop_id"] as? String == loopID, token == question["response_token"] as? String,
            let text = ["response", "message", "text", "payload"].lazy.compactMap({ response[$0] as? String }).first
        else {
            try FileManager.default.removeItem(atPath: path)
            return nil
        }
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.removeItem(atPath: layout.robotQuestion)
        signals.question = nil
        try writer.emit(topic: "human.response", payload: .string(text))
        return text
    }

    /// Rewrites `robot-checkin.json` when `RObot.checkin_interval_seconds` has passed since the last one.
    func checkinIfDue() throws {
        guard robotWebMode, let interval = (robotSettings["checkin_interval_seconds"] as? Int).map(Double.init) ?? robotSettings["checkin_interval_seconds"] as? Double,
            interval > 0
        else { return }
        if let last = signals.lastCheckin, Date().timeIntervalSince(last) < interval { return }
        signals.lastCheckin = Date()
        let elapsed = Date().timeIntervalSince(signals.startedAt)
        let checkin: [String: Any] = [
            "iteration": iteration, "elapsed_seconds": Int(elapsed), "elapsed_millis": Int(elapsed * 1000), "loop_id": loopID, "timestamp": Timestamp.now(),
            "context": ["current_hat": hats[max(0, iteration - 1) % hats.count], "open_tasks": 0, "closed_tasks": 0, "cumulative_cost": 0.0],
        ]
        try writeJSON(checkin, to: layout.robotCheckin)
    }

    /// Written as ralph writes them: complete or not at all (a temporary file renamed over the name).
    private func writeJSON(_ object: [String: Any], to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
