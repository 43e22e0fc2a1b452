import Foundation
import NIOPosix
import RalphAPI
import RalphFiles

/// Answers to RObot web-mode questions (ralph ≥ 2.10): ralph polls `.ralph/api/robot-response.json`, not the events
/// file, so the answer is that file, written atomically with the question's `id`, `loop_id` and `response_token`.
extension RobotRoutes {
    /// Whether a question id names a web-mode question (`<session id>-robot-<question id>`).
    static func isWebQuestionID(_ questionID: String) -> Bool { questionID.contains(RunSnapshot.robotQuestionMarker) }

    /// Writes the answer for the web-mode question `questionID` while the run still waits for it. ralph appends the
    /// `human.response` line itself once it has read the file, so the ack's `id` is empty.
    func answerWeb(questionID: String, text: String) async throws -> RobotResponseAck {
        guard let marker = questionID.range(of: RunSnapshot.robotQuestionMarker, options: .backwards),
            Int(questionID[marker.upperBound...]) != nil
        else {
            throw APIError.questionNotFound("'\(questionID.prefix(80))' is not a question id")
        }
        let snapshot: RunSnapshot
        do {
            snapshot = try await lookup.run(String(questionID[..<marker.lowerBound]))
        } catch .sessionNotFound {
            throw APIError.questionNotFound("no session for question \(questionID.prefix(80))")
        }
        guard let pending = snapshot.webPendingQuestion(), pending.id == "\(snapshot.id)\(RunSnapshot.robotQuestionMarker)\(questionID[marker.upperBound...])",
            let question = snapshot.liveness.robot.question
        else {
            throw APIError.questionNotFound("question \(questionID.prefix(80)) is not waiting for an answer (answered, timed out, or the run ended)")
        }
        let date = Date()
        let data = try WireJSON.encode(question.response(text, at: date))
        let root = snapshot.location.root
        let file = RalphLayout.robotResponse(stateDirectory: snapshot.location.stateDirectory)
        let written = try await NIOThreadPool.singleton.runIfActive { () -> Result<Void, ConfinementError> in
            do throws(ConfinementError) {
                try RootDirectory(path: root).writeAtomically(data, to: file)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = written { throw APIError(error, doing: "write the answer to .ralph/api/robot-response.json") }
        return RobotResponseAck(success: true, questionId: pending.id, deliveredAt: Timestamp.format(date), id: "")
    }
}
