import Foundation
import Observation
import RalphAPI

/// Drives a ``PresenceMachine``: tells it what the app does (foreground, background, the screen shown), sends the
/// reports it asks for, and owns the one task that renews them while the app stays in the foreground.
///
/// ```swift
/// let presence = PresenceReporter(send: { try await client.reportPresence($0) })
/// presence.enterForeground()
/// presence.show("session", subjectID: run.id)   // reported now, then every 30 s
/// presence.enterBackground()                    // foreground: false, the timer stops
/// ```
///
/// A failed report is kept in ``lastError`` (the next one is sent as usual); reports are sent one at a time, in order.
@MainActor
@Observable
public final class PresenceReporter {
    /// The state machine driven: where the client is, and when it last reported.
    public private(set) var machine: PresenceMachine
    /// Every report the server took, oldest first (the last 20).
    public private(set) var sent: [PresenceReport] = []
    /// Why the last report failed, until one succeeds.
    public private(set) var lastError: String?

    @ObservationIgnored private let send: @Sendable (PresenceReport) async throws -> Void
    @ObservationIgnored private var timer: Task<Void, Never>?
    /// Reports wait here so they reach the server in the order they were made.
    @ObservationIgnored private var queue: Task<Void, Never>?

    /// A reporter in the background that has sent nothing; call ``enterForeground()`` when the app is shown.
    ///
    /// - Parameters:
    ///   - refresh: how often a foreground report is renewed (`PresenceReport.refreshSeconds`; tests shorten it).
    ///   - send: delivers one report (``RalphClient/reportPresence(_:)``).
    public init(refresh: Duration = .seconds(PresenceReport.refreshSeconds), send: @escaping @Sendable (PresenceReport) async throws -> Void) {
        machine = PresenceMachine(refresh: refresh)
        self.send = send
    }

    /// Reports through `client`.
    public convenience init(client: RalphClient, refresh: Duration = .seconds(PresenceReport.refreshSeconds)) {
        self.init(refresh: refresh) { report in try await client.reportPresence(report) }
    }

    /// The app came to the foreground: the screen shown is reported at once, then renewed while it stays there.
    public func enterForeground() { handle(.foreground) }
    /// The app went to the background: `foreground: false` is reported once and the renewals stop.
    public func enterBackground() { handle(.background) }
    /// The screen now shown: `session`/`conversation` with its id, or `list`, `approvals`, `settings`… with none.
    public func show(_ screen: String?, subjectID: String? = nil) { handle(.screen(screen, subjectID: subjectID)) }
    /// The notification device this app registered as (its reports then name it, so it is not buzzed itself).
    public func useDevice(_ id: String?) { handle(.device(id)) }

    /// Stops the timer (a background report already sent stays the last word).
    public func stop() {
        timer?.cancel()
        timer = nil
    }

    /// Waits until every report made so far was sent (tests, and an app about to be suspended).
    public func flush() async {
        await queue?.value
    }

    private func handle(_ input: PresenceMachine.Input) {
        let action = machine.handle(input, now: .now)
        perform(action)
        schedule()
    }

    private func perform(_ action: PresenceMachine.Action) {
        guard case .send(let report) = action else { return }
        let previous = queue
        let send = send
        queue = Task { [weak self] in
            await previous?.value
            let failure: String?
            do {
                try await send(report)
                failure = nil
            } catch let error as RalphClientError {
                failure = error.description
            } catch {
                failure = "\(error)"
            }
            self?.record(report, failure: failure)
        }
    }

    private func record(_ report: PresenceReport, failure: String?) {
        if failure == nil {
            sent.append(report)
            if sent.count > 20 { sent.removeFirst(sent.count - 20) }
        }
        lastError = failure.map { "Could not report presence: \($0)" }
    }

    /// One timer task, waiting for the machine's next renewal; none in the background.
    private func schedule() {
        timer?.cancel()
        timer = nil
        guard let next = machine.nextTick else { return }
        timer = Task { [weak self] in
            try? await Task.sleep(until: next, clock: .continuous)
            guard !Task.isCancelled, let self else { return }
            self.timer = nil
            self.handle(.tick)
        }
    }
}
