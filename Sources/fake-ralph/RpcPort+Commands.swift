import Foundation
import RalphAPI
import RalphFiles

/// The RPC commands (reference §3), each answered with a `response` when it carries an `id`.
extension RpcPort {
    func handle(_ line: String) {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                emit("error", ["code": "invalid_command", "message": "a command is a JSON object", "recoverable": true])
                return
            }
            object = parsed
        } catch {
            emit("error", ["code": "parse_error", "message": "not JSON: \(error.localizedDescription)", "recoverable": true])
            return
        }
        let id = object["id"]
        guard let type = object["type"] as? String else {
            emit("error", ["code": "invalid_command", "message": "a command needs a type", "recoverable": true])
            respond(id, command: "", error: "a command needs a type")
            return
        }
        let message = (object["message"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        switch type {
        case "guidance": guidance(message, id: id)
        case "steer": steer(message, id: id)
        case "follow_up":
            guard !message.isEmpty else { return respond(id, command: type, error: "follow_up needs a message") }
            shared.withLock { $0.followUps.append(message) }
            respond(id, command: type)
        case "abort":
            let reason = object["reason"] as? String ?? "aborted"
            shared.withLock { $0.abortReason = reason }
            respond(id, command: type)
            stopRequested.store(true, ordering: .relaxed)
        case "get_state": respond(id, command: type, data: state())
        case "set_hat": setHat(object["hat"] as? String ?? "", id: id)
        case "prompt": respond(id, command: type, error: "prompt is accepted only at launch; pass -p instead")
        default:
            emit("error", ["code": "unknown_command", "message": "unknown command \(type)", "recoverable": true])
            respond(id, command: type, error: "unknown command \(type)")
        }
    }

    /// Guidance for the next iteration: recorded as `human.guidance` in the events file (the durable log), where the
    /// next iteration reads it as it reads the server's.
    private func guidance(_ message: String, id: Any?) {
        guard !message.isEmpty else { return respond(id, command: "guidance", error: "guidance needs a message") }
        let file = shared.withLock { $0.eventsFile }
        do {
            try EventFileAppender.append(line: EventFileAppender.emitLine(topic: "human.guidance", payload: .string(message)), to: file)
        } catch {
            return respond(id, command: "guidance", error: "cannot record the guidance: \(error)")
        }
        emit("guidance_ack", ["message": message, "applies_to": "next"])
        respond(id, command: "guidance")
    }

    /// A steer for the current iteration: persisted in `.ralph/urgent-steer.json`, which the iteration's next emit
    /// meets (see `FakeLoop.interjections()`).
    private func steer(_ message: String, id: Any?) {
        guard !message.isEmpty else { return respond(id, command: "steer", error: "steer needs a message") }
        let file = shared.withLock { $0.urgentSteerFile }
        do {
            let steer = UrgentSteer.adding(message, to: FileManager.default.contents(atPath: file))
            try WireJSON.encode(steer).write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            return respond(id, command: "steer", error: "cannot persist the steer: \(error)")
        }
        emit("guidance_ack", ["message": message, "applies_to": "current"])
        respond(id, command: "steer")
    }

    private func setHat(_ hat: String, id: Any?) {
        let known = shared.withLock { s -> [String]? in
            guard s.hats.contains(hat) else { return s.hats }
            s.hatOverride = hat
            return nil
        }
        if let known { return respond(id, command: "set_hat", error: "unknown hat \(hat) (hats: \(known.joined(separator: ", ")))") }
        emit("hat_changed", ["hat": hat, "applies_to": "next"])
        respond(id, command: "set_hat")
    }

    private func state() -> [String: Any] {
        shared.withLock { s in
            var data: [String: Any] = [
                "iteration": s.iteration, "max_iterations": s.maxIterations, "backend": s.backend, "completed": s.completed,
                "started_at": Int(s.startedAt.timeIntervalSince1970 * 1000), "total_cost_usd": s.totalCost,
            ]
            if let hat = s.hat { data["hat"] = hat }
            if s.iteration > 0 { data["iteration_started_at"] = Int(s.iterationStartedAt.timeIntervalSince1970 * 1000) }
            return data
        }
    }
}
