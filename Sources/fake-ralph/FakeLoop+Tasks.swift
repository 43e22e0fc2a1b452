import Foundation
import RalphAPI
import RalphFiles

/// ralph 2.10's task fields (reference §2, `.ralph/agent/tasks.jsonl`): `fake_ralph.task_key: <key>` makes the first
/// iteration add a task with that stable `key`, already `in_progress` with its `started` time (as the agent's
/// `ralph tools task` would).
extension FakeLoop {
    func writeKeyedTaskIfDue(iteration n: Int) throws {
        guard n == 1, let key = behaviour.string("task_key") else { return }
        let now = Date()
        let seconds = Int(now.timeIntervalSince1970)
        let task: [(String, JSONValue)] = [
            ("id", .string("task-\(seconds)-" + String(format: "%04x", Int.random(in: 0..<0x10000)))),
            ("title", .string(behaviour.string("task_title") ?? "Task \(key)")), ("status", .string("in_progress")), ("priority", .int(2)),
            ("blocked_by", .array([])), ("created", .string(Timestamp.formatRalph(now))), ("started", .string(Timestamp.formatRalph(now))),
            ("key", .string(key)),
        ]
        try EventFileAppender.append(line: JSONWriter.bytes(.object(JSONObject(task.map { (key: $0.0, value: $0.1) }))), to: layout.tasks, create: true)
    }
}
