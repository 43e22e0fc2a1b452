import AgentRunner
import Foundation
import Logging
import RalphAPI
import RalphFiles
import SQLStore
import ServiceLifecycle
import Synchronization

/// This server as one host of a cluster sharing a PostgreSQL database (`--database postgres://…`): it heartbeats,
/// publishes its runs, keeps the other hosts' runs in view, streams them, carries out the commands sent to it and
/// sends the ones meant for others — all through the database, with one `LISTEN` connection for the notices.
final class Cluster: Service, Sendable {
    let database: PostgresDatabase
    let hosts: HostRegistry
    let view: ClusterView
    let commands: ClusterCommands
    let stream: RemoteSessionStream
    let publisher: SessionPublisher
    let logger: Logger
    /// Told of each notice about conversations (their streams on this server look again).
    private let chatObservers = Mutex<[@Sendable (String?) -> Void]>([])

    let chat: ChatRelay
    /// The cluster's API keys and web logins.
    let auth: SharedAuth

    init(
        database: PostgresDatabase, hosts: HostRegistry, catalog: RunCatalog, supervisor: RunSupervisor, chat: ChatService, eventHub: EventHub,
        watchdog: StreamWatchdog, auth: SharedAuth, heartbeatInterval: Double, logger: Logger
    ) {
        self.database = database
        self.auth = auth
        self.hosts = hosts
        self.logger = logger
        view = ClusterView(database: database, hosts: hosts)
        commands = ClusterCommands(database: database, hosts: hosts, logger: logger)
        stream = RemoteSessionStream(
            database: database, view: view, watchdog: watchdog, heartbeatInterval: heartbeatInterval, queueBytes: eventHub.runs.queueBytes,
            queueFrames: eventHub.runs.queueFrames, logger: logger)
        publisher = SessionPublisher(catalog: catalog, supervisor: supervisor, database: database, hosts: hosts, logger: logger)
        self.chat = ChatRelay(chat: chat, eventHub: eventHub, hosts: hosts, logger: logger)
        self.chat.install(on: chat.store)
        observeChat { [relay = self.chat] id in relay.noticed(id) }
        let stream = stream
        // The global stream carries the other hosts' runs as it carries this host's.
        view.observe { [view] id in
            stream.wake(id)
            if let remote = view.remote(id) {
                eventHub.global.announce(as: StreamEventName.sessionUpdated) { view.shown(remote) }
            } else {
                stream.remove(id)
                eventHub.global.remove(sessionID: id)
            }
        }
        // A host coming or going changes how its runs are shown.
        hosts.observe { [view, hosts] changed in
            for info in hosts.all() where changed.contains(info.id) { eventHub.global.publish(name: StreamEventName.hostUpdated, value: info) }
            for id in view.ids() {
                stream.wake(id)
                eventHub.global.announce(as: StreamEventName.sessionUpdated) { view.remote(id).map { view.shown($0) } }
            }
        }
    }

    /// `observer` hears the conversation of each chat notice (nil after a reconnection: every conversation).
    func observeChat(_ observer: @escaping @Sendable (String?) -> Void) {
        chatObservers.withLock { $0.append(observer) }
    }

    // MARK: - Owners

    /// The host a conversation's agent runs on; nil when there is no such conversation (or it predates hosts).
    func conversationHost(_ id: String) async throws -> String? {
        try await database.first("SELECT host_id FROM conversations WHERE id = ?", [id])?.optionalString("host_id")
    }

    /// The host of an approval's conversation.
    func approvalHost(_ id: String) async throws -> String? {
        try await database.first(
            "SELECT c.host_id FROM approvals a JOIN conversations c ON c.id = a.conversation_id WHERE a.id = ?", [id])?.optionalString("host_id")
    }

    // MARK: - Running

    func run() async throws {
        let listener = PostgresListener(database: database, channel: ClusterNotice.channel, logger: logger)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in await heartbeats() }
            group.addTask { [self] in await publisher.run() }
            group.addTask { [self] in await chat.run() }
            group.addTask { [self] in await stream.run() }
            group.addTask { [self] in
                // A notice can be missed (a dropped connection): keys are read every second all the same.
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    await reloadKeys()
                }
            }
            group.addTask { [self] in
                for await event in listener.events { await handle(event) }
            }
            try? await gracefulShutdown()
            group.cancelAll()
            await bounded("the listener connection", .seconds(3)) { await listener.stop() }
        }
        // Saying this host stopped needs the database; one that is gone must not keep the server from stopping (the
        // others then see it offline by its missing heartbeats).
        await bounded("saying this host stopped", .seconds(3)) { [hosts] in await hosts.stopped() }
        await bounded("the commands under way", .seconds(3)) { [commands] in await commands.shutdown() }
    }

    /// Waits for `work` at most `timeout`, then goes on without it (it is left to finish or fail on its own).
    private func bounded(_ what: String, _ timeout: Duration, _ work: @escaping @Sendable () async -> Void) async {
        let done = StopLatch()
        Task {
            await work()
            done.open()
        }
        if await withDeadline(timeout, { await done.wait() ? true : nil }) == nil {
            logger.warning("cluster: \(what) did not finish within \(timeout) while stopping (is the database reachable?)")
        }
    }

    /// Heartbeats every second; while the database cannot be reached, the other hosts count as offline here (their
    /// runs cannot be reached either).
    private func heartbeats() async {
        // The first heartbeat (starting) was made before the server began to serve.
        var starting = false
        var failingSince: ContinuousClock.Instant?
        var beats = 0
        while !Task.isCancelled {
            beats += 1
            if beats % 60 == 0 { await commands.prune() }
            do {
                try await hosts.heartbeat(starting: starting)
                starting = false
                failingSince = nil
            } catch {
                let since = failingSince ?? .now
                failingSince = since
                logger.warning("cluster: heartbeat failed: \(error)")
                if ContinuousClock.now - since > .seconds(hosts.timeout) { hosts.markOthersOffline() }
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func reloadKeys() async {
        do {
            try await auth.load()
        } catch where !Task.isCancelled {
            // The keys last read stay in use: a revocation made meanwhile applies once the database answers again.
            logger.warning("cluster: cannot read the API keys: \(error)")
        } catch {}
    }

    private func handle(_ event: PostgresListener.Event) async {
        switch event {
        case .connected:
            // Notices sent meanwhile are lost: everything is read again.
            do {
                try await hosts.refresh()
                try await view.reload()
            } catch {
                logger.warning("cluster: resync after reconnecting failed: \(error)")
            }
            commands.resync()
            stream.wakeAll()
            await reloadKeys()
            for observer in chatObservers.withLock({ $0 }) { observer(nil) }
        case .disconnected:
            break
        case .notification(let payload):
            guard let notice = ClusterNotice(payload: payload) else { return }
            switch notice {
            case .host: try? await hosts.refresh()
            case .session(let host, let id) where host != hosts.id: try? await view.reload(id: id)
            case .session: break
            case .events(let session, let line): stream.wake(session, through: line)
            case .command(let host, let id): commands.commandArrived(id, host: host)
            case .result(let id): commands.resultArrived(id)
            case .chat(let conversation, _):
                for observer in chatObservers.withLock({ $0 }) { observer(conversation) }
            case .keys: await reloadKeys()
            case .approval: break
            }
        }
    }
}
