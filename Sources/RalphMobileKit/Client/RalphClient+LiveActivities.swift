import Foundation
import RalphAPI

extension RalphClient {
    /// `POST /api/notifications/live-activities`: the server keeps this Live Activity current through APNs while the
    /// app is suspended, and ends it when the run ends. Give `state` (what the activity shows now) so the server sends
    /// an update only when its own differs. A server without APNs credentials answers ``RalphClientError/server(status:message:)``
    /// (503) naming what to configure; an unknown run or conversation is a not-found error.
    public func registerLiveActivity(_ request: RegisterLiveActivityRequest) async throws(RalphClientError) -> LiveActivityRegistration {
        try await send(.POST, "/api/notifications/live-activities", json: request)
    }

    /// `GET /api/notifications/live-activities`: this key's Live Activities the server keeps current (an admin: all),
    /// with how their last update went.
    public func liveActivities() async throws(RalphClientError) -> [LiveActivityRegistration] {
        try await get("/api/notifications/live-activities", as: LiveActivityRegistrationList.self).liveActivities
    }

    /// `DELETE /api/notifications/live-activities/{id}`: the activity ended on the phone; the server stops updating it.
    public func removeLiveActivity(_ id: String) async throws(RalphClientError) -> LiveActivityRegistration {
        try await send(.DELETE, "/api/notifications/live-activities/\(Self.component(id))", as: RemovedLiveActivity.self).removed
    }

    /// The body of `DELETE /api/notifications/live-activities/{id}`.
    struct RemovedLiveActivity: Decodable {
        var removed: LiveActivityRegistration
    }
}
