import Foundation
import Logging
import RalphAPI
import SQLStore
import Synchronization

/// Conversations of other hosts, as this server serves them: their rows and events are in the shared store, and the
/// owner's notice after each step (sent in the step's transaction) makes this server deliver the new events to its own
/// streams of the conversation, and announce the conversation and its approvals on its global stream.
final class ChatRelay: Sendable {
    let chat: ChatService
    let eventHub: EventHub
    let hosts: HostRegistry
    let logger: Logger
    /// The approvals this server announced as pending, by conversation (to announce them resolved in turn).
    private let pending = Mutex<[String: Set<String>]>([:])
    /// The notices to act on, one at a time and in order (so a stream never gets an event twice).
    private let notices: (stream: AsyncStream<String?>, continuation: AsyncStream<String?>.Continuation)

    init(chat: ChatService, eventHub: EventHub, hosts: HostRegistry, logger: Logger) {
        self.chat = chat
        self.eventHub = eventHub
        self.hosts = hosts
        self.logger = logger
        notices = AsyncStream.makeStream(of: String?.self)
    }

    /// The owner's side: each commit tells the cluster, in its transaction, which conversations moved.
    func install(on store: ChatStore) {
        store.onCommit { db, touched in
            for (id, seq) in touched {
                try await db.execute("SELECT pg_notify(?, ?)", ClusterNotice.channel, ClusterNotice.chat(conversation: id, seq: seq).payload)
            }
        }
    }

    /// A notice about `conversation` (nil: every conversation, after the listener reconnected).
    func noticed(_ conversation: String?) {
        notices.continuation.yield(conversation)
    }

    /// Acts on the notices until cancelled.
    func run() async {
        await withTaskCancellationHandler {
            for await conversation in notices.stream {
                do {
                    if let conversation {
                        try await relay(conversation)
                    } else {
                        for id in chat.chatHub.openConversationIDs() { try await relay(id) }
                    }
                } catch {
                    logger.warning("cluster: could not relay conversation \(conversation ?? "(all)"): \(error)")
                }
            }
        } onCancel: { [continuation = notices.continuation] in
            continuation.finish()
        }
    }

    private func relay(_ id: String) async throws {
        guard let conversation = try await chat.store.conversation(id: id) else {
            chat.chatHub.remove(conversationID: id)
            return
        }
        guard let owner = conversation.hostId, owner != hosts.id else { return }
        // New events for this server's streams of it.
        while let head = chat.chatHub.conversations.head(id) {
            let events = try await chat.store.events(conversationID: id, after: head, limit: 1000)
            guard !events.isEmpty else { break }
            chat.chatHub.publish(
                conversationID: id, events: events.map { ($0.seq, SSEFrame.event(id: String($0.seq), name: $0.name, data: $0.data)) })
            guard events.count == 1000 else { break }
        }
        var shown = conversation
        shown.host = hosts.host(owner)?.name
        eventHub.publishConversation(name: ChatEventName.conversationUpdated, value: shown)
        // Approvals that became pending, or stopped being.
        let now = Set(try await chat.store.approvals(state: .pending, conversationID: id).map(\.id))
        let before = pending.withLock { $0[id] ?? [] }
        pending.withLock { $0[id] = now }
        for approvalID in now.union(before) where now.contains(approvalID) != before.contains(approvalID) {
            if let approval = try await chat.store.approval(id: approvalID) { eventHub.approvalChanged(approval) }
        }
    }
}
