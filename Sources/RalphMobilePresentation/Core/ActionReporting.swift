import RalphMobileKit

/// A screen model that tells the person how an action went, in a toast: its notice once the action is done, the
/// server's answer when it is not. One rule for every screen's actions (pin, archive, delete …), so no screen clears
/// one and forgets the other.
@MainActor
protocol ActionReporting: AnyObject {
    var notice: String? { get set }
    var lastError: String? { get set }
}

extension ActionReporting {
    /// Runs `action`; done, `done` becomes the notice and the last error is cleared; failed, the error is kept for the
    /// toast. Returns what the action gave, nil when it failed.
    func report<T>(done: String?, _ action: () async throws(RalphClientError) -> T) async -> T? {
        do {
            let value = try await action()
            notice = done
            lastError = nil
            return value
        } catch {
            lastError = error.description
            return nil
        }
    }
}
