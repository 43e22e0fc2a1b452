import AgentRunner
import Foundation
import Logging
import RalphAPI
import RalphFiles

extension RalphMobileServer {
    /// The Live Activity updater: APNs from the notifier, a run's state from its session detail (as
    /// `GET /api/sessions/{id}` shows it), a conversation's from the conversation and its pending approvals.
    static func makeLiveActivities(
        configuration: ServerConfiguration, store: ChatStore, changes: LiveActivityChanges, notifier: Notifier, authenticator: Authenticator, chat: ChatService, catalog: RunCatalog,
        supervisor: RunSupervisor, logger: Logger
    ) -> LiveActivityUpdater {
        let lookup = SessionLookup(catalog: catalog, supervisor: supervisor)
        var updaterLogger = logger
        updaterLogger[metadataKey: "area"] = "live-activities"
        let apns: APNsSender?
        let unavailable: String
        switch notifier.apns {
        case .success(let sender): (apns, unavailable) = (sender, "")
        case .failure(let why): (apns, unavailable) = (nil, why.reason)
        }
        return LiveActivityUpdater(.init(
            store: LiveActivityStore(chat: store), changes: changes, apns: apns, unavailable: unavailable,
            role: { [authenticator] in authenticator.currentRole(keyID: $0) },
            session: { id in await sessionLookup(id, lookup: lookup) },
            conversation: { id in await conversationLookup(id, chat: chat) },
            configuration: configuration.notifications, logger: updaterLogger))
    }

    static func sessionLookup(_ id: String, lookup: SessionLookup) async -> LiveActivityUpdater.Lookup {
        await lookup.catalog.waitUntilReady()
        guard let snapshot = lookup.catalog.snapshot(id: id) else { return .gone("the run \(id) is gone") }
        do {
            let detailed = try await lookup.detailed(snapshot)
            return .current(LiveActivityContent.state(detailed.detail(paused: lookup.supervisor.isPaused(id))))
        } catch {
            if case .sessionNotFound = error { return .gone("the run \(id) is gone") }
            return .unavailable("\(error)")
        }
    }

    static func conversationLookup(_ id: String, chat: ChatService) async -> LiveActivityUpdater.Lookup {
        do {
            let conversation = try await chat.conversation(id)
            let approvals = try await chat.approvals(state: .pending, conversationID: id)
            return .current(LiveActivityContent.state(conversation, approvals: approvals))
        } catch {
            if case .notFound = error { return .gone("the conversation \(id) was deleted") }
            return .unavailable("\(error)")
        }
    }
}
