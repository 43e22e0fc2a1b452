import AgentRunner
import Foundation
import RalphAPI
import RalphFiles

/// The original iOS app's signal buttons emit `user.pause`, `user.abort`, `user.guidance` and `user.priority`
/// (`POST /api/sessions/{id}/emit`). ralph reads none of these topics, so written alone they would be success-shaped
/// no-ops; each does what its button says first, and is then recorded as the event it was:
///
/// - `user.pause`: the server's pause (SIGSTOP, `paused_by: server`), as `POST …/pause`;
/// - `user.abort`: ralph's graceful stop (`.ralph/stop-requested`), as `DELETE /api/sessions/{id}` — which needs an
///   admin key: an operator's `user.abort` is `403` and nothing is written;
/// - `user.guidance`, `user.priority`: guidance ralph reads in its next iteration (`human.guidance`, or the RPC
///   `guidance` command for a run started here), as a non-urgent steer; a priority is prefixed `Priority:`.
///
/// When the action cannot be done the answer is its error and no event is written.
extension SteeringRoutes {
    static let signalTopics: Set<String> = ["user.pause", "user.abort", "user.guidance", "user.priority"]

    /// Carries out the signal `topic` for `snapshot`; returns what was done, in words.
    func carryOutSignal(_ topic: String, payload: JSONValue?, snapshot: RunSnapshot, context: AppRequestContext) async throws -> String {
        switch topic {
        case "user.pause":
            do {
                _ = try await supervisor.pause(sessionID: snapshot.id)
            } catch {
                throw APIError(error)
            }
            return "paused"
        case "user.abort":
            guard try context.requireIdentity().role.includes(.admin) else {
                throw APIError.forbiddenAction("user.abort stops the run, which needs an admin key; nothing was stopped or recorded")
            }
            do {
                _ = try await supervisor.requestStop(sessionID: snapshot.id, force: false)
            } catch {
                throw APIError(error)
            }
            return "stopping at the end of this iteration"
        default:
            let text = Self.signalText(payload)
            guard !text.isEmpty else { throw APIError.invalidBody("payload: \(topic) needs the guidance text") }
            let message = try TextLimit.steering.freeText(topic == "user.priority" ? "Priority: " + text : text, field: "payload")
            // Exactly what a non-urgent steer does: ralph's RPC `guidance` for a run started here, else `human.guidance`.
            let (answer, _) = try await steer(message, urgent: false, snapshot: snapshot)
            return answer.via == "rpc" ? "guidance sent to ralph for its next iteration (\(answer.status))" : "guidance for ralph's next iteration"
        }
    }

    /// The text of a signal's payload: a string, or the `message`/`text` of an object.
    static func signalText(_ payload: JSONValue?) -> String {
        switch payload {
        case .string(let text)?: return text.trimmingCharacters(in: .whitespacesAndNewlines)
        case .object(let object)?:
            return (object["message"]?.stringValue ?? object["text"]?.stringValue ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        default: return ""
        }
    }
}
