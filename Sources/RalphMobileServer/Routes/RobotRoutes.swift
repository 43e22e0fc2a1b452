import Foundation
import Hummingbird
import RalphAPI
import RalphFiles

/// Human-in-the-loop (ralph's RObot): questions ralph is waiting on, answers, guidance.
struct RobotRoutes {
    let catalog: RunCatalog
    let lookup: SessionLookup
    let events: EventWriter
    /// The questions other hosts' runs wait on, in a cluster.
    var remoteQuestions: @Sendable () -> [PendingQuestion] = { [] }

    func register(on routes: Routes) {
        routes.viewer.get("/api/robot/questions") { _, context in try await questions(context) }
        routes.operator.post("/api/robot/response") { request, context in try await respond(request, context) }
        routes.operator.post("/api/robot/guidance") { request, context in try await guide(request, context) }
    }

    /// Pending questions of live runs (`human.interact` lines, and RObot web-mode questions), oldest first.
    func questions(_ context: AppRequestContext) async throws -> Response {
        await catalog.waitUntilReady()
        let now = Date()
        let questions = (catalog.snapshots().compactMap { $0.pendingQuestion(now: now) } + remoteQuestions())
            .sorted { ($0.askedAt, $0.id) < ($1.askedAt, $1.id) }
        return JSONResponse.make(RobotQuestionsResponse(questions: questions))
    }

    /// Answers a question: a `human.response` line in the run that asked, while ralph still waits for it.
    func respond(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let body = try await request.decode(as: RobotResponseRequest.self, context: context)
        return JSONResponse.make(try await answer(questionID: body.questionId, text: body.responseText))
    }

    /// Writes the answer to a question waiting in a live run (also what a notification's Answer button does).
    func answer(questionID: String, text responseText: String) async throws -> RobotResponseAck {
        let text = try TextLimit.steering.freeText(responseText, field: "response_text")
        if Self.isWebQuestionID(questionID) { return try await answerWeb(questionID: questionID, text: text) }
        // Question ids are "<session id>-<event id>".
        guard let dash = questionID.lastIndex(of: "-"), Int(questionID[questionID.index(after: dash)...]) != nil else {
            throw APIError.questionNotFound("'\(questionID.prefix(80))' is not a question id")
        }
        let sessionPart = String(questionID[..<dash])
        let snapshot: RunSnapshot
        do {
            snapshot = try await lookup.run(sessionPart)
        } catch .sessionNotFound {
            throw APIError.questionNotFound("no session for question \(questionID.prefix(80))")
        }
        guard let pending = snapshot.pendingQuestion(), pending.id == "\(snapshot.id)-\(questionID[questionID.index(after: dash)...])" else {
            throw APIError.questionNotFound("question \(questionID.prefix(80)) is not waiting for an answer (answered, timed out, or the run ended)")
        }
        let date = Date()
        let id = try await events.append(topic: "human.response", payload: .string(text), to: snapshot, at: date)
        return RobotResponseAck(success: true, questionId: pending.id, deliveredAt: Timestamp.format(date), id: id.description)
    }

    /// Guidance for a run's next iteration (`human.guidance`). Without `session_id`, the only live run.
    func guide(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let body = try await request.decode(as: RobotGuidanceRequest.self, context: context)
        let text = try TextLimit.steering.freeText(body.guidanceText, field: "guidance_text")
        let snapshot: RunSnapshot
        if let sessionID = body.sessionId, !sessionID.isEmpty {
            snapshot = try await lookup.run(sessionID)
        } else {
            await catalog.waitUntilReady()
            let live = catalog.snapshots().filter(\.isLive)
            guard live.count == 1 else {
                if live.isEmpty { throw APIError.notRunning("no run is live to take the guidance") }
                throw APIError.invalidBody("session_id is required: \(live.count) runs are live")
            }
            snapshot = live[0]
        }
        let date = Date()
        let id = try await events.append(topic: "human.guidance", payload: .string(text), to: snapshot, at: date)
        return JSONResponse.make(RobotGuidanceAck(success: true, sessionId: snapshot.id, deliveredAt: Timestamp.format(date), id: id.description))
    }
}
