import Foundation
import RalphAPI
import RalphFiles

/// The RPC commands as ralph 2.10.1 answers them (ralph-proto `json_rpc.rs`, ralph-cli `rpc_stdin.rs`): every line is
/// parsed strictly into one command — `type` one of the known ones, `id` a string when present, the command's own
/// fields present with their types — or answered by a `response` of command `parse` with no id. Every command is
/// answered by a `response` (`success`, `data` or `error`), with its `id` when it had one.
extension RpcPort {
    static let commands = ["prompt", "guidance", "steer", "follow_up", "abort", "get_state", "get_iterations", "set_hat", "extension_ui_response"]

    func handle(_ line: String) {
        let object: [String: Any]
        switch Self.parse(line) {
        case .failure(let why): return respond(nil, command: "parse", error: why.description)
        case .success(let parsed): object = parsed
        }
        let type = object["type"] as! String
        let id = object["id"] as? String
        let message = object["message"] as? String ?? ""
        switch type {
        case "guidance": guidance(message, id: id)
        case "steer": steer(message, id: id)
        case "follow_up":
            // Like guidance, for the next iteration (ralph queues it on the same channel and acknowledges it `next`).
            shared.withLock { $0.followUps.append(message) }
            emit("guidance_ack", ["message": message, "applies_to": "next"])
            respond(id, command: type)
        case "abort":
            shared.withLock { $0.abortReason = object["reason"] as? String ?? "aborted" }
            respond(id, command: type)
            stopRequested.store(true, ordering: .relaxed)
        case "get_state": respond(id, command: type, data: state())
        case "get_iterations":
            let (n, max) = shared.withLock { ($0.iteration, $0.maxIterations) }
            respond(id, command: type, data: ["iteration": n, "max_iterations": max, "include_content": object["include_content"] as? Bool ?? false])
        case "prompt": respond(id, command: type, error: "loop already running; use guidance or steer instead")
        default:
            // `set_hat` and `extension_ui_response` parse, and ralph 2.10.1 refuses them.
            respond(id, command: type, error: "not yet implemented")
        }
    }

    /// One command line, checked the way serde reads ralph's tagged `RpcCommand` enum.
    static func parse(_ line: String) -> Result<[String: Any], ParseFailure> {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return .failure(ParseFailure("invalid type: expected a command object"))
            }
            object = parsed
        } catch {
            return .failure(ParseFailure("invalid JSON: \(error.localizedDescription)"))
        }
        guard let type = object["type"] as? String else { return .failure(ParseFailure("missing field `type`")) }
        guard commands.contains(type) else { return .failure(ParseFailure("unknown variant `\(type)`, expected one of \(commands.joined(separator: ", "))")) }
        if let id = object["id"], !(id is String), !(id is NSNull) { return .failure(ParseFailure("invalid type for `id`: expected a string")) }
        let required: [String: [String]] = [
            "prompt": ["prompt"], "guidance": ["message"], "steer": ["message"], "follow_up": ["message"], "set_hat": ["hat"],
            "extension_ui_response": ["request_id"],
        ]
        for field in required[type] ?? [] {
            guard object[field] is String else { return .failure(ParseFailure("missing field `\(field)`")) }
        }
        return .success(object)
    }

    struct ParseFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Guidance for the next iteration: recorded as `human.guidance` in the events file (the durable log), where the
    /// next iteration reads it as it reads the server's.
    private func guidance(_ message: String, id: String?) {
        let file = shared.withLock { $0.eventsFile }
        do {
            try EventFileAppender.append(line: EventFileAppender.emitLine(topic: "human.guidance", payload: .string(message)), to: file)
        } catch {
            return respond(id, command: "guidance", error: "guidance channel closed")
        }
        emit("guidance_ack", ["message": message, "applies_to": "next"])
        respond(id, command: "guidance")
    }

    /// A steer for the current iteration: persisted in `.ralph/urgent-steer.json`, which the iteration's next emit
    /// meets (see `FakeLoop.interjections()`).
    private func steer(_ message: String, id: String?) {
        let file = shared.withLock { $0.urgentSteerFile }
        do {
            let steer = UrgentSteer.adding(message, to: FileManager.default.contents(atPath: file))
            try WireJSON.encode(steer).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            return respond(id, command: "steer", error: "failed to persist urgent steer: \(error)")
        }
        emit("guidance_ack", ["message": message, "applies_to": "current"])
        respond(id, command: "steer")
    }

    /// ralph's `RpcState`.
    private func state() -> [String: Any] {
        shared.withLock { s in
            let hat = s.hat ?? s.hats.first ?? "ralph"
            return [
                "iteration": s.iteration, "max_iterations": s.maxIterations, "hat": hat, "hat_display": hat.capitalized, "backend": s.backend,
                "completed": s.completed, "started_at": Int(s.startedAt.timeIntervalSince1970 * 1000),
                "iteration_started_at": s.iteration > 0 ? Int(s.iterationStartedAt.timeIntervalSince1970 * 1000) as Any : NSNull(),
                "task_counts": ["total": 0, "open": 0, "closed": 0, "ready": 0], "active_task": NSNull(), "total_cost_usd": s.totalCost,
            ]
        }
    }
}
