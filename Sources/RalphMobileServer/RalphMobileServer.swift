import AgentRunner
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import RalphAPI
import RalphFiles
import RalphNotify
import RalphSimulator
import SQLStore
import ServiceLifecycle

/// The server: catalog, event hub, authentication and the Hummingbird application that serves them.
///
/// `init` checks everything that could stop the server from working (roots, data directory, keys, binding without a
/// key) and throws a ``StartupError`` that says what to do; ``makeApplication(onServerRunning:)`` builds the app that
/// `ralph-mobile-server` runs and tests drive on port 0.
public struct RalphMobileServer: Sendable {
    public let configuration: ServerConfiguration
    public let roots: [String]
    public let catalog: RunCatalog
    public let keyStore: KeyStore
    public let authenticator: Authenticator
    public let supervisor: RunSupervisor
    let hostSampler: HostSampler
    let hub: EventHub
    let chat: ChatService
    let notifier: Notifier
    let liveActivities: LiveActivityUpdater
    /// Closes event streams whose client stopped reading (and hands them the stream counters).
    let watchdog: StreamWatchdog
    /// This server's metrics (`GET /metrics`), in a registry of its own.
    public let metrics: ServerMetrics
    /// The original iOS app's session streams (``LegacyStreamClients``).
    let legacyStreams = LegacyStreamClients()
    let demo: DemoProcess?
    let webAssets: WebAssets
    /// The API's OpenAPI contract (`/openapi.json`).
    let contract = APIContract.bundled()
    let logger: Logger
    /// This server as a host (its id and name), and the cluster it belongs to when it shares a PostgreSQL database.
    let hosts: HostRegistry
    let cluster: Cluster?
    /// The port the server listens on, once it does (pairing URLs need it when it was asked for port 0).
    let listeningPort = ListeningPort()

    /// A server on its own, with its SQLite database (the configuration must not name a PostgreSQL one: use
    /// ``open(configuration:logger:)``).
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "ralph-mobile.server")) throws(StartupError) {
        guard configuration.databaseURL == nil else {
            throw StartupError("a server with --database is opened with RalphMobileServer.open (it connects to the database first)")
        }
        try self.init(configuration: configuration, logger: logger, shared: nil)
    }

    /// The server for `configuration`: with `--database postgres://…`, it connects to the database (up to 10 s),
    /// brings its schema up to date and joins the cluster; otherwise as ``init(configuration:logger:)``.
    public static func open(configuration: ServerConfiguration, logger: Logger = Logger(label: "ralph-mobile.server")) async throws(StartupError)
        -> RalphMobileServer
    {
        guard let url = configuration.databaseURL else { return try RalphMobileServer(configuration: configuration, logger: logger) }
        let parsed: DatabaseURL
        do {
            parsed = try DatabaseURL(url)
        } catch {
            throw StartupError("--database: \(error)")
        }
        var databaseLogger = logger
        databaseLogger[metadataKey: "area"] = "database"
        databaseLogger.logLevel = max(logger.logLevel, .warning)
        let database = PostgresDatabase(url: parsed, logger: databaseLogger)
        // A database starting at the same time as this server gets 10 s to come up.
        var lastError = ""
        let deadline = ContinuousClock.now + .seconds(10)
        repeat {
            do {
                try await database.probe(timeout: .seconds(5))
                _ = try await database.query("SELECT 1 AS ok")
                lastError = ""
                break
            } catch {
                lastError = "\(error)"
                try? await Task.sleep(for: .milliseconds(500))
            }
        } while ContinuousClock.now < deadline
        guard lastError.isEmpty else {
            await database.close()
            throw StartupError("cannot reach the database \(parsed.redacted): \(lastError)")
        }
        let store: ChatStore
        do {
            store = try await ChatStore.connect(database, named: parsed.redacted)
        } catch {
            await database.close()
            throw StartupError("cannot use the database \(parsed.redacted): \(error)")
        }
        let server = try RalphMobileServer(configuration: configuration, logger: logger, shared: (database, store))
        // This host announced and the other hosts read, and the cluster's keys (with this host's file keys added),
        // before the first request.
        do {
            try await server.hosts.heartbeat(starting: true)
        } catch {
            await database.close()
            throw StartupError("cannot announce this host in \(parsed.redacted): \(error)")
        }
        do {
            try await server.cluster?.auth.start()
        } catch {
            await database.close()
            throw StartupError("cannot read the cluster's API keys from \(parsed.redacted): \(error)")
        }
        do {
            try checkKeyed(configuration, keyStore: server.keyStore)
        } catch {
            await database.close()
            throw error
        }
        return server
    }

    private init(configuration: ServerConfiguration, logger: Logger, shared: (database: PostgresDatabase, store: ChatStore)?) throws(StartupError) {
        self.configuration = configuration
        self.logger = logger
        metrics = ServerMetrics()
        watchdog = StreamWatchdog(counters: metrics.streamCounters)
        guard (0...65535).contains(configuration.port) else { throw StartupError("port \(configuration.port) is out of range (0-65535)") }
        do {
            try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StartupError("cannot create the data directory \(configuration.dataDirectory): \(error.localizedDescription)")
        }
        do {
            keyStore = try KeyStore(path: configuration.keysFile)
        } catch {
            throw StartupError(error.description)
        }
        if let apiKey = configuration.apiKey, let weakness = APIKeyPolicy.weakness(of: apiKey) {
            throw StartupError(APIKeyPolicy.refusal(weakness, source: "--api-key or RALPH_MOBILE_API_KEY"))
        }
        // A cluster's keys are in its database: checked once they are read (``open(configuration:logger:)``).
        if shared == nil { try Self.checkKeyed(configuration, keyStore: keyStore) }
        try Self.checkMetricsKey(configuration, keyStore: keyStore)
        let webSessions = try WebSessionStore(path: configuration.webSessionsFile)
        authenticator = Authenticator(
            keyStore: keyStore, apiKey: configuration.apiKey, loopbackOnly: configuration.isLoopbackOnly, webSessions: webSessions,
            metricsKey: configuration.metricsKey, failureLimit: configuration.authFailureLimit
        )
        do {
            webAssets = try WebAssets(directory: configuration.webRoot)
        } catch {
            throw StartupError(error.description)
        }
        if configuration.demo {
            do {
                try DemoLoop.prepareWorkspace(configuration.demoWorkspace)
            } catch {
                throw StartupError("cannot create the demo workspace \(configuration.demoWorkspace): \(error)")
            }
            let options = DemoProcess.Options(
                command: configuration.demoCommand, workspace: configuration.demoWorkspace, pace: configuration.demoPace,
                questionTimeout: max(5, configuration.demoPace * 15), restBetweenRuns: max(1, configuration.demoPace * 5),
                logFile: configuration.demoRoot + "/demo.log"
            )
            demo = DemoProcess(options: options, logger: logger)
        } else {
            demo = nil
        }
        roots = try configuration.resolvedRoots()
        let hostID = try HostRegistry.identity(dataDirectory: configuration.dataDirectory)
        hosts = HostRegistry(
            id: hostID, name: configuration.hostName ?? HostRegistry.machineName, database: shared?.database, timeout: configuration.hostTimeout)
        var catalogConfiguration = RunCatalog.Configuration(roots: roots)
        // In a cluster, run ids are made unique across its hosts; on its own, a server keeps the ids it always had.
        if shared != nil { catalogConfiguration.idNamespace = hostID }
        catalogConfiguration.pollInterval = configuration.pollInterval
        catalogConfiguration.rescanInterval = configuration.rescanInterval
        catalogConfiguration.livenessInterval = configuration.livenessInterval
        catalogConfiguration.useInotify = configuration.useInotify
        catalogConfiguration.userConfigFile = configuration.userConfigFile
        catalogConfiguration.indexDirectory = configuration.dataDirectory + "/run-index"
        catalogConfiguration.holdsBackgroundFolds = configuration.holdsBackgroundFolds
        catalogConfiguration.foldObserver = { [metrics] lines, malformed, duration in metrics.folded(lines: lines, malformed: malformed, duration: duration) }
        var catalogLogger = logger
        catalogLogger[metadataKey: "area"] = "catalog"
        catalog = RunCatalog(configuration: catalogConfiguration, logger: catalogLogger)
        hub = EventHub(
            queueBytes: configuration.subscriberQueueBytes, queueFrames: configuration.subscriberQueueCapacity, stamp: { [hosts] in hosts.stamp($0) },
            stampConversation: { [hosts] in hosts.stamp($0) })
        // The fan-out hears a change before run control does, so a start answered with its run finds the run's stream.
        catalog.subscribe(hub)
        var supervisorConfiguration = RunSupervisor.Configuration(dataDirectory: configuration.dataDirectory, environment: ProcessInfo.processInfo.environment)
        supervisorConfiguration.ralphCommand = configuration.ralphCommand
        supervisorConfiguration.stopGrace = configuration.stopGrace
        supervisorConfiguration.startTimeout = configuration.startTimeout
        supervisorConfiguration.ralphRPC = configuration.ralphRPC
        var supervisorLogger = logger
        supervisorLogger[metadataKey: "area"] = "supervisor"
        supervisor = RunSupervisor(configuration: supervisorConfiguration, catalog: catalog, logger: supervisorLogger)
        // Paused is run control's state: the fan-out re-announces a session when it changes.
        supervisor.observePauses { [hub, catalog] id, paused in hub.pauseChanged(id: id, paused: paused) { catalog.snapshot(id: id) } }
        // ralph's RPC events of runs started here: their state-frame subscribers get the new detail.
        supervisor.observeRPC { [hub] id in hub.rpcChanged(id: id) }
        let liveActivityChanges = LiveActivityChanges()
        supervisor.observePauses { [liveActivityChanges] id, _ in liveActivityChanges.touch(.session, id) }
        hub.knowStops(supervisor.stopRecords())
        supervisor.observeStops { [hub, catalog, liveActivityChanges] id, request in
            hub.stopChanged(id: id, request: request) { catalog.snapshot(id: id) }
            liveActivityChanges.touch(.session, id)
        }
        hostSampler = HostSampler(diskPath: roots.first ?? configuration.dataDirectory)
        let store: ChatStore
        if let shared {
            store = shared.store
        } else {
            do {
                store = try ChatStore(path: configuration.chatDatabase)
            } catch {
                throw StartupError("cannot open the conversations database \(configuration.chatDatabase): \(error)")
            }
        }
        notifier = try Self.makeNotifier(
            configuration: configuration, store: NotificationStore(chat: store), authenticator: authenticator, catalog: catalog, supervisor: supervisor,
            logger: logger, metrics: metrics)
        catalog.subscribe(notifier)
        var machine = ConversationMachine.Configuration()
        machine.stallAfter = configuration.chatStallAfter
        machine.idleStopAfter = configuration.chatIdleStop
        machine.interruptGrace = configuration.chatInterruptGrace
        var chatEnvironment = ProcessInfo.processInfo.environment
        chatEnvironment = ChildEnvironment.scrubbed(chatEnvironment)
        chatEnvironment.merge(configuration.chatEnvironment) { _, given in given }
        var chatLogger = logger
        chatLogger[metadataKey: "area"] = "chat"
        chat = ChatService(
            store: store,
            chatHub: ChatHub(queueBytes: configuration.subscriberQueueBytes, queueFrames: configuration.subscriberQueueCapacity) { [liveActivityChanges] in
                liveActivityChanges.touch(.conversation, $0)
            },
            eventHub: hub, roots: WorkspaceRoots(roots),
            configuration: ChatService.Configuration(
                backends: [
                    .claude(command: configuration.claudeCommand, extraArguments: configuration.claudeArguments),
                    .codex(command: configuration.codexCommand, extraArguments: configuration.codexArguments, sandbox: configuration.codexSandbox),
                ],
                machine: machine
            ),
            environment: chatEnvironment, hostID: hostID, logger: chatLogger, metrics: metrics, notificationsRecorded: { [notifier] in notifier.wake() }
        )
        liveActivities = Self.makeLiveActivities(
            configuration: configuration, store: store, changes: liveActivityChanges, notifier: notifier, authenticator: authenticator, chat: chat, catalog: catalog, supervisor: supervisor,
            logger: logger)
        catalog.subscribe(liveActivities)
        if let shared {
            var clusterLogger = logger
            clusterLogger[metadataKey: "area"] = "cluster"
            let cluster = Cluster(
                database: shared.database, hosts: hosts, catalog: catalog, supervisor: supervisor, chat: chat, eventHub: hub, watchdog: watchdog,
                auth: SharedAuth(database: shared.database, keyStore: keyStore, webSessions: webSessions, logger: clusterLogger),
                heartbeatInterval: configuration.heartbeatInterval, logger: clusterLogger)
            catalog.subscribe(cluster.publisher)
            supervisor.observePauses { [publisher = cluster.publisher] id, _ in publisher.mark(id) }
            supervisor.observeStops { [publisher = cluster.publisher] id, _ in publisher.mark(id) }
            self.cluster = cluster
        } else {
            cluster = nil
        }
    }

    /// Refuses to listen beyond loopback without any key.
    private static func checkKeyed(_ configuration: ServerConfiguration, keyStore: KeyStore) throws(StartupError) {
        guard !configuration.isLoopbackOnly && configuration.apiKey == nil && keyStore.isEmpty else { return }
        throw StartupError(
            """
            refusing to listen on \(configuration.host) without an API key: anyone who can reach this address could read \
            your agents' work. Pass --api-key, set RALPH_MOBILE_API_KEY, or create a key with \
            `ralph-mobile-server keys create --role admin`.
            """
        )
    }

    /// Refuses a metrics key that is weak, or that is also a key of the API: presented anywhere else it would grant
    /// more than the metrics.
    private static func checkMetricsKey(_ configuration: ServerConfiguration, keyStore: KeyStore) throws(StartupError) {
        guard let metricsKey = configuration.metricsKey else { return }
        if let weakness = APIKeyPolicy.weakness(of: metricsKey) {
            throw StartupError(APIKeyPolicy.refusal(weakness, source: "--metrics-key or RALPH_MOBILE_METRICS_KEY"))
        }
        if metricsKey == configuration.apiKey || keyStore.authenticate(metricsKey) != nil {
            throw StartupError("--metrics-key must not be an API key as well: it grants /metrics and nothing else; pick another random key")
        }
    }

    /// The router of every route, with the ledger of each route's access (``Routes``).
    func makeRouter() -> (router: Router<AppRequestContext>, ledger: RouteLedger) {
        let router = Router(context: AppRequestContext.self)
        let routeTable = RouteTable()
        // First: everything after it runs in a short-lived task, so a connection keeps only a shallow stack.
        router.add(middleware: RoutingTaskMiddleware())
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: RequestLogMiddleware())
        router.add(middleware: HTTPMetricsMiddleware(metrics: metrics))
        router.add(middleware: ErrorMiddleware(routes: routeTable))
        router.add(middleware: BodyLimitMiddleware())
        if configuration.isLoopbackOnly {
            router.add(middleware: TrustedLoopbackMiddleware(authenticator: authenticator, boundHost: configuration.host))
        }
        router.add(middleware: AuthMiddleware(authenticator: authenticator))
        if let cluster {
            router.add(
                middleware: ClusterForwardMiddleware(
                    cluster: cluster, catalog: catalog, supervisor: RunSupervisorLookup { [supervisor] in supervisor.startedRun(matching: $0) != nil }))
        }
        let ledger = RouteLedger()
        let routes = Routes(router: router, ledger: ledger)
        let lookup = SessionLookup(catalog: catalog, supervisor: supervisor, foldWait: configuration.detailFoldWait)
        let events = EventWriter(catalog: catalog)
        let workspaceRoots = WorkspaceRoots(roots)
        let selector = WorkspaceSelector(roots: workspaceRoots, lookup: lookup)
        HealthRoutes(authenticator: authenticator, chat: chat, notificationCapabilities: notifier.capabilities).register(on: routes)
        SessionRoutes(catalog: catalog, lookup: lookup, legacyStreams: legacyStreams, hosts: hosts, cluster: cluster?.view).register(on: routes)
        ClusterRoutes(hosts: hosts).register(on: routes)
        SteeringRoutes(catalog: catalog, roots: workspaceRoots, lookup: lookup, events: events, experimentalUrgentSteer: configuration.experimentalUrgentSteer).register(on: routes)
        var robot = RobotRoutes(catalog: catalog, lookup: lookup, events: events)
        if let view = cluster?.view { robot.remoteQuestions = { view.questions() } }
        robot.register(on: routes)
        LibraryRoutes(selector: selector, roots: workspaceRoots, supervisor: supervisor).register(on: routes)
        WorkspaceRoutes(selector: selector).register(on: routes)
        LoopRoutes(selector: selector, roots: workspaceRoots, supervisor: supervisor, catalog: catalog).register(on: routes)
        HostRoutes(sampler: hostSampler).register(on: routes)
        EventStreamRoutes(
            catalog: catalog, hub: hub, lookup: lookup, watchdog: watchdog, legacy: legacyStreams, heartbeatInterval: configuration.heartbeatInterval,
            metrics: metrics
        ).register(on: routes)
        KeyRoutes(keyStore: keyStore, shared: cluster?.auth).register(on: routes)
        ConversationRoutes(chat: chat, watchdog: watchdog, hosts: hosts, metrics: metrics).register(on: routes)
        AutoReplyRoutes(chat: chat).register(on: routes)
        WebLoginRoutes(authenticator: authenticator, shared: cluster?.auth).register(on: routes)
        NotificationRoutes(
            notifier: notifier,
            actions: NotificationActionHandler(
                store: notifier.store, chat: chat, robot: robot, supervisor: supervisor, role: { [authenticator] in authenticator.currentRole(keyID: $0) })
        ).register(on: routes)
        LiveActivityRoutes(updater: liveActivities, lookup: lookup, chat: chat).register(on: routes)
        WebRoutes(assets: webAssets).register(on: routes)
        ContractRoutes(contract: contract).register(on: routes)
        PairingRoutes(
            store: PairingStore(path: configuration.pairingFile), keyStore: keyStore, authenticator: authenticator, boundHost: configuration.host,
            boundPort: { [listeningPort, configuration] in listeningPort.current(or: configuration.port) }, clustered: cluster != nil
        ).register(on: routes)
        MetricsRoutes(metrics: metrics, sources: scrapeSources).register(on: routes)
        routeTable.record(router.routes.map { ($0.path, $0.method.rawValue) })
        if let cluster {
            // Commands other hosts send run through this very router.
            let responder = router.buildResponder()
            cluster.commands.attach { request, context in try await responder.respond(to: request, context: context) }
        }
        return (router, ledger)
    }

    /// What `GET /metrics` reads at scrape time.
    var scrapeSources: ScrapeSources {
        ScrapeSources(
            runsByMode: { [catalog, supervisor] in
                var counts: [SessionMode: Int] = [:]
                for snapshot in catalog.snapshots() { counts[snapshot.mode(paused: supervisor.isPaused(snapshot.id)), default: 0] += 1 }
                return counts
            },
            pendingApprovals: { [chat] in try await chat.store.approvals(state: .pending, conversationID: nil).count },
            openStreams: { [watchdog] in watchdog.count },
            laggedSubscribers: { [hub, chat] in hub.catchUpCount + chat.chatHub.conversations.catchUpCount })
    }

    /// The Hummingbird application. `onServerRunning` receives the bound port (useful with port 0).
    public func makeApplication(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = makeRouter().router
        let logger = self.logger
        let configuration = self.configuration
        let authRequired = authenticator.authRequired
        let policy = configuration.connectionPolicy
        let listeningPort = self.listeningPort
        let clustered = cluster != nil
        return Application(
            router: router,
            server: .guarded(policy, limiter: ConnectionLimiter(maxConnections: policy.maxConnections)),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "ralph-mobile-server/\(RalphMobileVersion.current)",
                backlog: 4096
            ),
            // Shut down in reverse order: the background work (streams, chat, run control) first, then the catalog,
            // which writes its index as it stops.
            services: [
                catalog,
                notifier,
            ] + (cluster.map { [$0] } ?? []) + [
                liveActivities,
                BackgroundService(
                    catalog: catalog, hub: hub, chat: chat, keyStore: keyStore, supervisor: supervisor, demo: demo, watchdog: watchdog,
                    heartbeatInterval: configuration.heartbeatInterval, stallTimeout: configuration.streamStallTimeout, logger: logger
                )
            ],
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                listeningPort.set(port)
                // For `ralph-mobile-server pair`, which runs as another process and puts this address in its QR code.
                let record = ServerAddressRecord(host: configuration.host, port: port, pid: getpid(), cluster: clustered)
                do {
                    try record.write(to: configuration.dataDirectory)
                } catch {
                    logger.warning("cannot record the listening address for `ralph-mobile-server pair` (give it --url): \(error)")
                }
                logger.notice(
                    "ralph-mobile-server \(RalphMobileVersion.current) listening on http://\(configuration.host):\(port)",
                    metadata: [
                        "auth": "\(authRequired ? "API key required" : "trusted loopback, no key")",
                        "max_connections": "\(policy.maxConnections)",
                    ]
                )
                await onServerRunning(port)
            },
            logger: logger
        )
    }
}

/// Runs chat recovery, run control's restore, the demo, state frames, SSE heartbeats, memory trimming and key reloads
/// for as long as the server runs (the catalog is a service of its own, started before and stopped after this one),
/// and on graceful shutdown closes every stream and shuts chat and run control down.
struct BackgroundService: Service {
    let catalog: RunCatalog
    let hub: EventHub
    let chat: ChatService
    let keyStore: KeyStore
    let supervisor: RunSupervisor
    let demo: DemoProcess?
    let watchdog: StreamWatchdog
    let heartbeatInterval: Double
    let stallTimeout: Double
    let logger: Logger

    func run() async throws {
        chat.startRecovery()
        supervisor.restoreWhenReady()
        let interval = Duration.milliseconds(Int(heartbeatInterval * 1000))
        let tick = min(Duration.seconds(1), interval / 2)
        await withTaskGroup(of: Void.self) { group in
            if let demo {
                // A child of this service: stopped below before the group is left, so the group's wait ends.
                group.addTask {
                    logger.notice("demo: a simulated ralph loop is starting; watch it in the sessions list")
                    await demo.run()
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: tick)
                    hub.sendHeartbeats(interval: interval)
                    chat.chatHub.sendHeartbeats(interval: interval)
                    let closed = watchdog.sweep(timeout: .milliseconds(Int(stallTimeout * 1000)))
                    if closed > 0 { logger.notice("closed \(closed) event stream(s) whose client read nothing for \(stallTimeout) s") }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    chat.tick()
                }
            }
            group.addTask {
                // Session details for the streams that asked for state frames (`?state=1`): a run still being folded
                // after a first start is waited for (it is folded first), as no state frame follows until it changes.
                let lookup = SessionLookup(catalog: catalog, supervisor: supervisor, foldWait: SessionLookup.stateFrameFoldWait)
                await hub.runStateFeed(logger: logger) { id in
                    guard let snapshot = catalog.snapshot(id: id) else { return nil }
                    let detailed = try await lookup.detailed(snapshot)
                    return EventHub.RunDetail(
                        detail: hub.shown(lookup.withRPC(detailed.detail(paused: supervisor.isPaused(id), stop: supervisor.stopRecord(for: id)))), lineCount: detailed.state.lineCount, end: detailed.isLive ? nil : EventHub.endFrame(for: detailed.snapshot)
                    )
                }
            }
            group.addTask {
                // Memory a load used goes back to the system once the load is over.
                var trimmer = MemoryTrimmer()
                if let idle = Heap.residentBytes() { _ = trimmer.observe(resident: idle, streams: 0) }
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(5))
                    guard let resident = Heap.residentBytes() else { continue }
                    let streams = watchdog.count
                    logger.trace("memory: \(resident >> 20) MB resident, \(streams) streams open")
                    guard trimmer.observe(resident: resident, streams: streams) else { continue }
                    _ = try? await NIOThreadPool.singleton.runIfActive { Heap.trim() }
                    let after = Heap.residentBytes() ?? resident
                    trimmer.trimmed(resident: after, streams: watchdog.count)
                    logger.info("returned freed memory to the system: \(resident >> 20) MB → \(after >> 20) MB resident")
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    guard let outcome = try? await NIOThreadPool.singleton.runIfActive({ keyStore.reloadIfChanged() }) else { continue }
                    KeyStore.log(outcome, path: keyStore.path, logger: logger)
                }
            }
            try? await gracefulShutdown()
            hub.stateQueue.finish()
            group.cancelAll()
            // Cancelling does not end the demo (it waits for its child): stopping it does.
            await demo?.stop()
        }
        hub.closeAll()
        chat.chatHub.closeAll()
        await chat.shutdown()
        await supervisor.shutdown()
        await watchdog.shutdown()
    }
}
