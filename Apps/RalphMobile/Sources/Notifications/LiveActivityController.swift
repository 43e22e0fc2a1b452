import ActivityKit
import Foundation
import RalphAPI
import RalphMobileKit

/// ActivityKit's side of the Live Activity: performs what `LiveActivityTracker` decided (start, update, end). The
/// activity's attributes are `LiveActivitySubject` and its content state `LiveActivityState` (RalphAPI). It is
/// requested with `pushType: .token`: each push token ActivityKit gives is handed to ``tokenHandler`` (the
/// `LiveActivityModel`, which registers it with the server so the server's `liveactivity` pushes update it while the app
/// is suspended).
enum LiveActivityController {
    /// Receives the running activity's push tokens (set once by the app).
    @MainActor static var tokenHandler: ((Data) async -> Void)?
    /// Follows the running activity's push tokens; cancelled when it ends or another starts.
    @MainActor private static var tokenTask: Task<Void, Never>?

    /// How long content counts before the lock screen shows it as stale (updates come from the app while it runs).
    static let staleAfter: TimeInterval = 300
    /// How long an ended activity stays on the lock screen.
    static let keepEndedFor: TimeInterval = 15 * 60

    @MainActor
    static func perform(_ action: LiveActivityTracker.Action) async throws {
        switch action {
        case .none:
            return
        case .start(let subject, let state):
            guard ActivityAuthorizationInfo().areActivitiesEnabled else { throw Disabled() }
            for old in Activity<LiveActivitySubject>.activities {
                await old.end(nil, dismissalPolicy: .immediate)
            }
            let content = ActivityContent(state: state, staleDate: Date().addingTimeInterval(staleAfter))
            let activity = try Activity<LiveActivitySubject>.request(attributes: subject, content: content, pushType: .token)
            tokenTask?.cancel()
            tokenTask = Task { @MainActor in
                for await token in activity.pushTokenUpdates {
                    await tokenHandler?(token)
                }
            }
        case .update(let state):
            let content = ActivityContent(state: state, staleDate: Date().addingTimeInterval(staleAfter))
            for activity in Activity<LiveActivitySubject>.activities {
                await activity.update(content)
            }
        case .end(let state):
            tokenTask?.cancel()
            tokenTask = nil
            let content = ActivityContent(state: state, staleDate: nil)
            for activity in Activity<LiveActivitySubject>.activities {
                await activity.end(content, dismissalPolicy: .after(Date().addingTimeInterval(keepEndedFor)))
            }
        }
    }

    struct Disabled: LocalizedError {
        var errorDescription: String? { "Live Activities are turned off for Ralph Mobile in Settings." }
    }
}
