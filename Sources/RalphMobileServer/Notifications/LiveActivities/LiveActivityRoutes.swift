import Foundation
import Hummingbird
import RalphAPI

/// The Live Activities the server keeps current (viewer: following a run on the lock screen is reading it):
///
/// - `GET /api/notifications/live-activities`: the caller's (every one for an admin), with how their updates went.
/// - `POST /api/notifications/live-activities` (``RegisterLiveActivityRequest``): `201` with the registration; `503
///   unavailable` when the server has no APNs credentials, `404` for an unknown run or conversation, `409` for a run
///   still starting or a key at its limit.
/// - `DELETE /api/notifications/live-activities/{id}`: the app ended the activity itself.
struct LiveActivityRoutes {
    let updater: LiveActivityUpdater
    let lookup: SessionLookup
    let chat: ChatService

    func register(on routes: Routes) {
        routes.viewer.get("/api/notifications/live-activities") { _, context in
            let identity = try context.requireIdentity()
            let activities = try await updater.store.activities(keyID: identity.role == .admin ? .none : .some(identity.keyID))
            return JSONResponse.make(LiveActivityRegistrationList(liveActivities: activities.map { $0.view() }))
        }
        routes.viewer.post("/api/notifications/live-activities") { request, context in
            let identity = try context.requireIdentity()
            var body = try await request.decode(as: RegisterLiveActivityRequest.self, context: context)
            if let reason = updater.unavailableReason {
                throw APIError.other(.serviceUnavailable, .unavailable, "Live Activities are updated through APNs. \(reason)")
            }
            body.pushToken = try Self.validatedToken(body.pushToken)
            body.subjectId = try await resolve(body.subject, body.subjectId)
            let limit = updater.dependencies.configuration.maxLiveActivitiesPerKey
            let mine = try await updater.store.activities(keyID: .some(identity.keyID))
            if mine.count >= limit, !mine.contains(where: { $0.pushToken == body.pushToken }) {
                throw APIError.conflict("this key already has \(limit) Live Activities kept current; end one first")
            }
            let stored = try await updater.store.register(body, keyID: identity.keyID, now: Timestamp.now())
            updater.dependencies.changes.touch(body.subject, body.subjectId)
            return JSONResponse.make(stored.view(), status: .created)
        }
        routes.viewer.delete("/api/notifications/live-activities/{id}") { _, context in
            let identity = try context.requireIdentity()
            let id = context.parameters.get("id") ?? ""
            guard let activity = try await updater.store.activity(id: id), identity.role == .admin || activity.keyID == identity.keyID else {
                throw APIError.notFound("no Live Activity '\(id.prefix(80))'")
            }
            try await updater.store.remove(id: activity.id)
            return JSONResponse.make(["removed": activity.view()])
        }
    }

    /// The run's full id (a prefix is accepted, like everywhere), or the conversation's id once it is known to exist.
    private func resolve(_ kind: LiveActivitySubject.Kind, _ raw: String) async throws(APIError) -> String {
        guard !raw.isEmpty, raw.count <= 200 else { throw .invalidBody("subject_id must be 1 to 200 characters") }
        switch kind {
        case .session: return try await lookup.run(raw).id
        case .conversation: return try await chat.conversation(raw).id
        }
    }

    /// ActivityKit's push token: hex, 16 to 512 characters, lowercased.
    static func validatedToken(_ token: String) throws(APIError) -> String {
        let lower = token.lowercased()
        guard (16...512).contains(lower.count), lower.count.isMultiple(of: 2),
            lower.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw .invalidBody("push_token must be the activity's push token in hex (16 to 512 hex digits)")
        }
        return lower
    }
}
