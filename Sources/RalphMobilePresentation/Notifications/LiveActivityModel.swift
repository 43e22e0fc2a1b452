import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// The session (or conversation) screen's Live Activity: a button that puts the run on the lock screen and in the
/// Dynamic Island, the content kept current from the screen's data, and its end when the run ends.
///
/// The app hands in the ActivityKit glue as ``perform``; everything else — when to start, update, end, and the
/// words — is decided here. While the app is suspended the server keeps the activity current: the activity's push
/// token (``pushTokenReceived(_:)``) is registered with the connected server (``server``), which sends
/// `liveactivity` pushes, and the registration is removed when the person ends the activity.
@MainActor
@Observable
public final class LiveActivityModel {
    public private(set) var tracker = LiveActivityTracker()
    /// Why the last start or update failed (Live Activities turned off, too many running …).
    public private(set) var problem: String?
    /// Where the activity's push token is registered: the connected server and the APNs environment of this build
    /// (set by ``NotificationsHub``; nil: no server, the activity follows only while the app is open).
    public var server: LiveActivityServer?
    /// The server's registration of the running activity, once its push token was registered.
    public private(set) var registration: LiveActivityRegistration?
    /// Why the server does not keep the activity current (no APNs credentials there, unreachable …): the lock screen
    /// then follows only while the app is open.
    public private(set) var serverNote: String?

    /// Performs an action with ActivityKit (the app), or records it (tests).
    @ObservationIgnored private let perform: @MainActor (LiveActivityTracker.Action) async throws -> Void

    public init(perform: @escaping @MainActor (LiveActivityTracker.Action) async throws -> Void) {
        self.perform = perform
    }

    public var isActive: Bool { tracker.isActive }

    /// Whether the activity follows this run or conversation.
    public func isFollowing(_ id: String) -> Bool { tracker.subject?.id == id }

    /// `Show on Lock Screen` / `Remove from Lock Screen`, for the screen of `id`.
    public func buttonTitle(for id: String) -> String { isFollowing(id) ? "Remove from Lock Screen" : "Show on Lock Screen" }
    public func buttonImage(for id: String) -> String { isFollowing(id) ? "rectangle.badge.xmark" : "platter.filled.top.iphone" }

    /// Whether a run can be followed (it is not over).
    public func canStart(_ session: Session) -> Bool { !LiveActivityContent.state(session).phase.isFinal }

    /// Starts following a run.
    public func start(_ detail: SessionDetail) async {
        await start(LiveActivitySubject.session(detail.session), LiveActivityContent.state(detail))
    }

    /// Starts following a conversation (its turns waiting for approval).
    public func start(_ conversation: Conversation, approvals: [Approval]) async {
        await start(LiveActivitySubject.conversation(conversation), LiveActivityContent.state(conversation, approvals: approvals))
    }

    /// The screen's data changed: update the activity (or end it when the run ended).
    public func update(_ detail: SessionDetail) async {
        guard tracker.subject?.id == detail.session.id else { return }
        await run(tracker.handle(LiveActivityContent.state(detail)))
    }

    public func update(_ conversation: Conversation, approvals: [Approval]) async {
        guard tracker.subject?.id == conversation.id else { return }
        await run(tracker.handle(LiveActivityContent.state(conversation, approvals: approvals)))
    }

    /// The button: stop following this run, or follow it (instead of whatever the activity followed).
    public func toggle(_ detail: SessionDetail) async {
        if isFollowing(detail.session.id) { return await stop() }
        if tracker.isActive { await stop() }
        await start(detail)
    }

    /// The chat screen's button: stop following this conversation, or follow it.
    public func toggle(_ conversation: Conversation, approvals: [Approval]) async {
        if isFollowing(conversation.id) { return await stop() }
        if tracker.isActive { await stop() }
        await start(conversation, approvals: approvals)
    }

    public func stop() async {
        await run(tracker.stop())
    }

    /// ActivityKit gave the running activity a push token (again, when it changes): registered with the server, with
    /// the state the activity shows, so the server sends only what differs.
    public func pushTokenReceived(_ token: Data) async {
        guard let subject = tracker.subject, let server else { return }
        let request = RegisterLiveActivityRequest(
            subject: subject.kind, subjectId: subject.id, pushToken: token.map { String(format: "%02x", $0) }.joined(), environment: server.environment,
            state: tracker.state)
        do {
            let made = try await server.client.registerLiveActivity(request)
            // The activity may have ended (or another started) while the request was on its way.
            if tracker.subject == subject {
                registration = made
                serverNote = nil
            } else {
                _ = try await server.client.removeLiveActivity(made.id)
            }
        } catch {
            serverNote = "The lock screen follows this only while Ralph Mobile is open: \(error.description)"
        }
    }

    /// Tells the server to stop updating an activity that ended here (it drops one that ended with its run itself).
    private func unregister() async {
        guard let made = registration else { return }
        registration = nil
        guard let server else { return }
        do {
            _ = try await server.client.removeLiveActivity(made.id)
        } catch .notFound {
            // The server dropped it already (the run ended, or APNs said the activity is gone).
        } catch {
            serverNote = "The server could not be told the Live Activity ended: \(error.description)"
        }
    }

    /// The person read ``problem``.
    public func dismissProblem() { problem = nil }

    private func start(_ subject: LiveActivitySubject, _ state: LiveActivityState) async {
        do {
            await run(try tracker.start(subject, state))
        } catch {
            problem = error.description
        }
    }

    private func run(_ action: LiveActivityTracker.Action) async {
        guard action != .none else { return }
        switch action {
        case .start:
            registration = nil
            serverNote = nil
        case .end: await unregister()
        case .update, .none: break
        }
        do {
            try await perform(action)
            problem = nil
        } catch {
            if case .start = action { _ = tracker.stop() }
            problem = "The Live Activity could not be \(Self.verb(action)): \(error.localizedDescription)"
        }
    }

    static func verb(_ action: LiveActivityTracker.Action) -> String {
        switch action {
        case .none: "changed"
        case .start: "started (are Live Activities allowed for Ralph Mobile in Settings?)"
        case .update: "updated"
        case .end: "ended"
        }
    }
}

/// The server that keeps a Live Activity current, and the APNs environment of this build's push tokens.
public struct LiveActivityServer: Sendable {
    public var client: RalphClient
    public var environment: APNsEnvironment

    public init(client: RalphClient, environment: APNsEnvironment) {
        self.client = client
        self.environment = environment
    }
}
