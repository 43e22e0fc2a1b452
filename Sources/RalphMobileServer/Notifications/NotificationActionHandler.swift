import Foundation
import AgentRunner
import RalphAPI

/// Carries out a notification's button: checks the token (known, unused, not expired — else a clear error and nothing
/// changes), checks that the key of the device it was sent to still allows the decision, then decides the approval
/// answers the question, or resumes the run a hook suspended, exactly as the app would.
struct NotificationActionHandler: Sendable {
    let store: NotificationStore
    let chat: ChatService
    let robot: RobotRoutes
    /// Run control (a hook-suspended run's Resume writes `.ralph/resume-requested`).
    let supervisor: RunSupervisor
    let role: @Sendable (String?) -> Role?

    func perform(_ request: NotificationActionRequest) async throws -> NotificationActionResponse {
        guard request.token.hasPrefix("rmact_"), request.token.count < 200 else {
            throw APIError.other(.notFound, .actionTokenUnknown, "this is not a notification action token")
        }
        if let text = request.text, text.utf8.count > 4096 { throw APIError.invalidBody("text is longer than 4096 bytes") }
        let hash = ActionToken.hash(request.token)
        let token: ActionToken
        switch try await store.consumeToken(hash: hash, now: Date()) {
        case .failure(.unknown):
            throw APIError.other(.notFound, .actionTokenUnknown, "this server never issued this action, or its device was removed")
        case .failure(.used):
            throw APIError.other(.conflict, .actionTokenUsed, "this action was carried out already; a notification's button works once")
        case .failure(.expired):
            throw APIError.other(.gone, .actionTokenExpired, "this action expired; open Ralph Mobile to decide")
        case .success(let found):
            token = found
        }
        do {
            return try await carryOut(token, text: request.text)
        } catch let error as APIError where Self.keepsTokenUsable(error) {
            // The request was wrong or the server could not do it now: the button may be pressed again.
            try? await store.releaseToken(hash: hash)
            throw error
        }
    }

    private func carryOut(_ token: ActionToken, text: String?) async throws -> NotificationActionResponse {
        guard let role = role(token.keyID), role.includes(.operator) else {
            throw APIError.forbiddenAction("the key this device was registered with no longer allows decisions (revoked, or not an operator)")
        }
        let by = "notification \(token.deviceID)"
        switch token.action {
        case "allow", "deny":
            let decision: ApprovalDecision = token.action == "allow" ? .allow : .deny
            let approval = try await chat.decide(token.target, ApprovalDecisionRequest(decision: decision, message: text), by: by)
            let tool = approval.displayName ?? approval.toolName
            return NotificationActionResponse(
                action: token.action, subject: token.subject, subjectId: token.subjectID,
                detail: "\(decision == .allow ? "Allowed" : "Denied"): \(tool)")
        case "answer":
            guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw APIError.invalidBody("text: an answer needs the answer's text")
            }
            let ack = try await robot.answer(questionID: token.target, text: text)
            return NotificationActionResponse(action: "answer", subject: token.subject, subjectId: token.subjectID, detail: "Answered (\(ack.questionId))")
        case "resume":
            let kind = supervisor.resumeKind(sessionID: token.target)
            do {
                _ = try await supervisor.resume(sessionID: token.target)
            } catch {
                throw APIError(error)
            }
            let detail = kind == "resume_requested" ? "Resume requested: the hook's wait ends" : "Resumed"
            return NotificationActionResponse(action: "resume", subject: token.subject, subjectId: token.subjectID, detail: detail)
        default:
            throw APIError.internalError("unknown action '\(token.action)' in a stored token")
        }
    }

    /// Errors after which the token stays good: a bad request (missing text) or a failure on the server's side.
    /// Refusals that say the thing is over (decided, not waiting, not found) use it up.
    static func keepsTokenUsable(_ error: APIError) -> Bool {
        switch error {
        case .invalidBody, .internalError: true
        case .other(let status, _, _): status.code >= 500
        default: false
        }
    }
}
