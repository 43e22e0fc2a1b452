import Foundation
import RalphAPI

/// A Live Activity the server keeps current, as stored (``LiveActivityStore``): who registered it, its push token,
/// the last state APNs took, and where a failing update stands.
struct StoredLiveActivity: Sendable, Hashable {
    var id: String
    var keyID: String?
    var subject: LiveActivitySubject.Kind
    var subjectID: String
    var pushToken: String
    var environment: APNsEnvironment
    var createdAt: String
    /// The last state APNs took, or that was given up on (so the same state is not tried again and again); the state
    /// the app said it showed when it registered, before the first update.
    var lastState: LiveActivityState?
    var lastSentAt: String?
    /// When APNs last took an update (seconds since 1970), for the pace of updates.
    var sentAt: Double?
    var updatesSent: Int
    /// Attempts at the update being retried.
    var attempts: Int
    /// When to try that update again.
    var retryAt: Double?
    var lastOutcome: String?
    var lastError: String?

    /// The subject the activity follows, as the updater keys its changes.
    var key: LiveActivityChanges.Subject { .init(kind: subject, id: subjectID) }

    /// The API view (without the push token).
    func view() -> LiveActivityRegistration {
        LiveActivityRegistration(
            id: id, subject: subject, subjectId: subjectID, environment: environment, createdAt: createdAt, lastState: lastState,
            lastSentAt: lastSentAt, updatesSent: updatesSent, lastOutcome: lastOutcome, lastError: lastError)
    }
}
