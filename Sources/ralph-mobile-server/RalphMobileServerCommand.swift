import ArgumentParser
import Foundation
import Logging
import Metrics
import RalphAPI
import RalphMobileServer
import RalphSimulator

/// Options shared by every subcommand that touches the data directory.
struct DataDirectoryOptions: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Where keys, state and the demo workspace are kept.",
            discussion: "Default: $RALPH_MOBILE_DATA_DIR, else $XDG_DATA_HOME/ralph-mobile, else ~/.local/share/ralph-mobile.",
            valueName: "dir"
        )
    )
    var dataDirectory: String?

    var resolved: String { dataDirectory ?? ServerConfiguration.defaultDataDirectory() }
}

@main
struct RalphMobileServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ralph-mobile-server",
        abstract: "Watch and steer ralph loops from a phone, a browser or a terminal.",
        discussion: """
            Serves every ralph run in the workspaces (default: the current directory, its first-level \
            subdirectories and their .worktrees) over HTTP and server-sent events, live and lossless.

            Examples:
              ralph-mobile-server --demo              a simulated live loop, right away
              ralph-mobile-server --workspace ~/code  every project under ~/code
              ralph-mobile-server keys create --role operator --name phone
              ralph-mobile-server --bind-all          LAN access (needs a key)
              ralph-mobile-server --print-config      the settings in effect, and where each comes from
              ralph-mobile-server service install --user --workspace ~/code   a systemd (or launchd) service

            Every option can also be set in ~/.config/ralph-mobile/server.yaml (or the file --config names): \
            `port: 8080`, `workspace: [~/code]`. A flag wins over its environment variable, which wins over the file.
            """,
        version: RalphMobileVersion.current,
        subcommands: [Keys.self, DemoLoopCommand.self, Pair.self, ServiceCommand.self]
    )

    @Option(name: [.short, .long], help: ArgumentHelp("Port to listen on; 0 picks a free one.", valueName: "port"))
    var port = 8080

    @Flag(name: .customLong("bind-all"), help: "Listen on every interface (0.0.0.0). Requires an API key.")
    var bindAll = false

    @Option(name: .customLong("bind"), help: ArgumentHelp("Address to listen on (default 127.0.0.1). Anything but loopback requires an API key.", valueName: "addr"))
    var bind: String?

    @Option(
        name: .customLong("workspace"),
        help: ArgumentHelp("A directory whose ralph runs to serve; repeat for several. Default: the current directory.", valueName: "dir")
    )
    var workspaces: [String] = []

    @Option(name: .customLong("api-key"), help: ArgumentHelp("An admin API key (or set RALPH_MOBILE_API_KEY).", valueName: "key"))
    var apiKey: String?

    @OptionGroup var data: DataDirectoryOptions

    @Option(
        name: .customLong("metrics-key"),
        help: ArgumentHelp(
            "A key for GET /metrics and nothing else, sent as Authorization: Bearer <key> (or set RALPH_MOBILE_METRICS_KEY).", valueName: "key"))
    var metricsKey: String?

    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel = "info"

    @Flag(help: "Run a simulated ralph loop in <data-dir>/demo, so a live session shows up within seconds.")
    var demo = false

    @Option(name: .customLong("ralph-command"), help: ArgumentHelp("The ralph executable that starting a run uses (a path, or a name on PATH).", valueName: "cmd"))
    var ralphCommand = "ralph"

    @Option(name: .customLong("stop-grace"), help: ArgumentHelp("Seconds a stopped run gets to shut down after SIGTERM before SIGKILL.", valueName: "seconds"))
    var stopGrace: Double = 10

    @Option(
        name: .customLong("auth-failure-limit"),
        help: ArgumentHelp("Wrong keys one address may present per minute before its further attempts get 429 for the rest of it.", valueName: "count")
    )
    var authFailureLimit = 10

    @Flag(name: .customLong("no-ralph-rpc"), help: "Start runs without --rpc (for a ralph older than 2.7): no live cost or context use, no urgent steer of them.")
    var noRalphRPC = false

    @Flag(
        name: .customLong("experimental-urgent-steer"),
        help: "Let an urgent steer of a run not started here write .ralph/urgent-steer.json (ralph reads it, but does not document it as an interface)."
    )
    var experimentalUrgentSteer = false

    @Option(name: .customLong("claude-command"), help: ArgumentHelp("The Claude Code CLI conversations run (a path, or a name on PATH).", valueName: "cmd"))
    var claudeCommand = "claude"

    @Option(name: .customLong("claude-arg"), help: ArgumentHelp("A flag added to every run of the Claude CLI (repeat for several).", valueName: "arg"))
    var claudeArguments: [String] = []

    @Option(
        name: .customLong("database"),
        help: ArgumentHelp(
            "A PostgreSQL database shared with other servers: they form one cluster (default: $RALPH_MOBILE_DATABASE_URL, else SQLite in the data directory).",
            valueName: "postgres://user:password@host:port/db"))
    var database: String?

    /// `--database`, else `$RALPH_MOBILE_DATABASE_URL`.
    var databaseURL: String? {
        database ?? ProcessInfo.processInfo.environment["RALPH_MOBILE_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    @Option(name: .customLong("host-name"), help: ArgumentHelp("This server's name in a cluster (default: the machine's name).", valueName: "name"))
    var hostName: String?

    @Option(name: .customLong("codex-command"), help: ArgumentHelp("The Codex CLI conversations with backend codex run (a path, or a name on PATH).", valueName: "cmd"))
    var codexCommand = "codex"

    @Option(name: .customLong("codex-arg"), help: ArgumentHelp("A flag added to every `codex app-server` (repeat for several), e.g. -c key=value.", valueName: "arg"))
    var codexArguments: [String] = []

    @Option(
        name: .customLong("codex-sandbox"),
        help: ArgumentHelp("The sandbox Codex runs commands in: read-only, workspace-write (needs bubblewrap on Linux) or danger-full-access.", valueName: "mode")
    )
    var codexSandbox = ChatBackend.defaultCodexSandbox

    @Option(name: .customLong("chat-stall-after"), help: ArgumentHelp("Seconds of silence (no approval pending) before a turn is reported as stalled.", valueName: "seconds"))
    var chatStallAfter: Double = 300

    @Option(name: .customLong("chat-idle-stop"), help: ArgumentHelp("Seconds an idle agent process is kept before it is stopped (resumed on the next message).", valueName: "seconds"))
    var chatIdleStop: Double = 600

    @Option(
        name: .customLong("stream-stall-timeout"),
        help: ArgumentHelp("Seconds an event stream's write may wait on a client that reads nothing before its connection is closed.", valueName: "seconds")
    )
    var streamStallTimeout: Double = 60

    @Option(
        name: .customLong("web-root"),
        help: ArgumentHelp("Serve the web dashboard from this directory instead of the built-in copy (to edit it live).", valueName: "dir")
    )
    var webRoot: String?

    @Option(
        name: .customLong("header-timeout"),
        help: ArgumentHelp("Seconds a client has to send a request's head (from its first byte, or from connecting).", valueName: "seconds")
    )
    var headerTimeout: Double = 10

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp("Seconds a connection with no request open is kept; streams are never cut.", valueName: "seconds")
    )
    var idleTimeout: Double = 75

    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp(
            "Connections served at once; beyond, new ones get 503.",
            discussion: "Default: the open-file limit (raised to its hard limit at start) less an eighth kept for files, at most 65536.",
            valueName: "n"
        )
    )
    var maxConnections: Int?

    @OptionGroup(title: "Notifications") var notify: NotificationOptions

    /// Read by `main()` before the parse (see ConfigurationLayers); declared here for `--help` and the parse.
    @Option(
        name: .customLong("config"),
        help: ArgumentHelp("A configuration file to read instead of ~/.config/ralph-mobile/server.yaml (which may be missing; this one must exist).", valueName: "file"))
    var config: String?

    @Flag(name: .customLong("print-config"), help: "Print the configuration in effect (as a configuration file, with where each value comes from; secrets redacted) and exit.")
    var printConfig = false

    @Option(name: .customLong("start-timeout"), help: .hidden)
    var startTimeout: Double = 5

    @Option(name: .customLong("demo-pace"), help: .hidden)
    var demoPace: Double = 4

    @Option(name: .customLong("heartbeat-interval"), help: .hidden)
    var heartbeatInterval: Double = 15

    @Option(name: .customLong("poll-interval"), help: .hidden)
    var pollInterval: Double = 2

    @Flag(name: .customLong("no-inotify"), help: .hidden)
    var noInotify = false

    func validate() throws {
        if bindAll && bind != nil { throw ValidationError("use either --bind-all or --bind, not both") }
        if Logger.Level(rawValue: logLevel.lowercased()) == nil {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        if demoPace <= 0 || heartbeatInterval <= 0 || pollInterval <= 0 || startTimeout <= 0 { throw ValidationError("intervals must be positive") }
        if stopGrace < 0 || stopGrace > 3600 { throw ValidationError("--stop-grace must be between 0 and 3600 seconds") }
        if authFailureLimit < 1 { throw ValidationError("--auth-failure-limit must be at least 1") }
        if ralphCommand.isEmpty { throw ValidationError("--ralph-command cannot be empty") }
        if claudeCommand.isEmpty { throw ValidationError("--claude-command cannot be empty") }
        if codexCommand.isEmpty { throw ValidationError("--codex-command cannot be empty") }
        if !ChatBackend.codexSandboxes.contains(codexSandbox) {
            throw ValidationError("--codex-sandbox must be one of \(ChatBackend.codexSandboxes.joined(separator: ", "))")
        }
        if !(1...86_400).contains(chatStallAfter) { throw ValidationError("--chat-stall-after must be between 1 and 86400 seconds") }
        if !(1...604_800).contains(chatIdleStop) { throw ValidationError("--chat-idle-stop must be between 1 and 604800 seconds") }
        if !(1...86_400).contains(streamStallTimeout) { throw ValidationError("--stream-stall-timeout must be between 1 and 86400 seconds") }
        if !(0.1...3600).contains(headerTimeout) { throw ValidationError("--header-timeout must be between 0.1 and 3600 seconds") }
        if !(0.1...86_400).contains(idleTimeout) { throw ValidationError("--idle-timeout must be between 0.1 and 86400 seconds") }
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections must be at least 1") }
        if let apiKey, let weakness = APIKeyPolicy.weakness(of: apiKey) {
            throw ValidationError(APIKeyPolicy.refusal(weakness, source: "--api-key"))
        }
        if let metricsKey, let weakness = APIKeyPolicy.weakness(of: metricsKey) {
            throw ValidationError(APIKeyPolicy.refusal(weakness, source: "--metrics-key"))
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel.lowercased()) ?? .info
        // Lines logged for a request's work away from its logger (a conversation's steps) carry its id too.
        LoggingSystem.bootstrap({ label, provider in
            var handler = StreamLogHandler.standardError(label: label, metadataProvider: provider)
            handler.logLevel = level
            return handler
        }, metadataProvider: RequestTrace.metadataProvider)
        let fileLimit = FileDescriptorLimit.raiseToHardLimit()
        var configuration = ServerConfiguration(dataDirectory: data.resolved)
        configuration.host = bindAll ? "0.0.0.0" : (bind ?? "127.0.0.1")
        configuration.port = port
        configuration.workspaces = workspaces
        let environmentKey = ProcessInfo.processInfo.environment["RALPH_MOBILE_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        if apiKey == nil, let environmentKey, let weakness = APIKeyPolicy.weakness(of: environmentKey) {
            FileHandle.standardError.write(Data("error: \(APIKeyPolicy.refusal(weakness, source: "RALPH_MOBILE_API_KEY"))\n".utf8))
            throw ExitCode.failure
        }
        configuration.apiKey = apiKey ?? environmentKey
        configuration.metricsKey = metricsKey ?? ProcessInfo.processInfo.environment["RALPH_MOBILE_METRICS_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.demo = demo
        configuration.demoPace = demoPace
        configuration.heartbeatInterval = heartbeatInterval
        configuration.pollInterval = pollInterval
        configuration.useInotify = !noInotify
        configuration.ralphCommand = ralphCommand
        configuration.stopGrace = stopGrace
        configuration.authFailureLimit = authFailureLimit
        configuration.ralphRPC = !noRalphRPC
        configuration.experimentalUrgentSteer = experimentalUrgentSteer
        configuration.claudeCommand = claudeCommand
        configuration.claudeArguments = claudeArguments
        configuration.codexCommand = codexCommand
        configuration.codexArguments = codexArguments
        configuration.codexSandbox = codexSandbox
        configuration.databaseURL = databaseURL
        configuration.hostName = hostName
        configuration.chatStallAfter = chatStallAfter
        configuration.chatIdleStop = chatIdleStop
        configuration.streamStallTimeout = streamStallTimeout
        configuration.startTimeout = startTimeout
        configuration.webRoot = webRoot
        configuration.headerTimeout = headerTimeout
        configuration.idleTimeout = idleTimeout
        configuration.maxConnections = maxConnections ?? FileDescriptorLimit.defaultMaxConnections(for: fileLimit)
        notify.apply(to: &configuration)
        let server: RalphMobileServer
        do {
            server = try await RalphMobileServer.open(configuration: configuration)
        } catch {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            throw ExitCode.failure
        }
        // What a library records through swift-metrics' global system goes to this server's registry too (the server's
        // own metrics are created in that registry directly, so tests can run many servers in one process).
        MetricsSystem.bootstrap(server.metrics.factory)
        // Beyond the runs' own grace, ten seconds for the rest of the shutdown; then the process ends anyway.
        let deadline = ShutdownDeadline(seconds: configuration.stopGrace + 10)
        defer { deadline.cancel() }
        try await server.makeApplication().runService()
    }
}

struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage API keys (stored as SHA-256 digests in <data-dir>/keys.json, mode 0600, or in a cluster's database).",
        discussion: """
            A running server picks up changes within a second; no restart needed. With --database <url> (or \
            $RALPH_MOBILE_DATABASE_URL) the keys are the cluster's, in its PostgreSQL database: they work, and stop \
            working, on every host.
            """,
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key and print it once.")

        @Option(help: ArgumentHelp("admin (everything), operator (steer, chat, approvals) or viewer (read only).", valueName: "role"))
        var role: String

        @Option(help: ArgumentHelp("A label, e.g. the device that will use it.", valueName: "name"))
        var name: String?

        @OptionGroup var data: DataDirectoryOptions
        /// `--database`, an option of the server command, given after the subcommand's name as well.
        @ParentCommand var server: RalphMobileServerCommand

        func validate() throws {
            if Role(rawValue: role) == nil { throw ValidationError("--role must be admin, operator or viewer") }
        }

        func run() async throws {
            let role = Role(rawValue: role)!
            let (key, secret): (StoredKey, String)
            if let url = server.databaseURL {
                (key, secret) = try await Keys.cluster(url) { try await $0.create(role: role, name: name) }
            } else {
                let store = try Keys.open(data)
                (key, secret) = try Keys.perform { () throws(KeyStore.KeyError) in try store.create(role: role, name: name) }
            }
            print("Created \(key.role.rawValue) key \(key.id)\(key.name.map { " (\($0))" } ?? "").")
            print("Key (shown only now; store it in your client):")
            print(secret)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (ids, roles, names; never the keys).")

        @OptionGroup var data: DataDirectoryOptions
        /// `--database`, an option of the server command, given after the subcommand's name as well.
        @ParentCommand var server: RalphMobileServerCommand

        func run() async throws {
            let keys: [StoredKey]
            let source: String
            if let url = server.databaseURL {
                keys = try await Keys.cluster(url) { try await $0.keys() }
                source = "the cluster's database"
            } else {
                let store = try Keys.open(data)
                keys = store.keys
                source = store.path
            }
            if keys.isEmpty {
                print("No keys in \(source).")
                return
            }
            print("ID           ROLE      CREATED                   NAME")
            for key in keys {
                let id = key.id.padding(toLength: 12, withPad: " ", startingAt: 0)
                let role = key.role.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
                let created = key.createdAt.padding(toLength: 25, withPad: " ", startingAt: 0)
                print("\(id) \(role) \(created) \(key.name ?? "")")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key by its id (or a unique prefix of it).")

        @Argument(help: ArgumentHelp("The key id shown by `keys list`.", valueName: "id"))
        var id: String

        @OptionGroup var data: DataDirectoryOptions
        /// `--database`, an option of the server command, given after the subcommand's name as well.
        @ParentCommand var server: RalphMobileServerCommand

        func run() async throws {
            let key: StoredKey
            if let url = server.databaseURL {
                guard let revoked = try await Keys.cluster(url, { [id] in try await $0.revoke(id) }) else {
                    FileHandle.standardError.write(Data("error: no single key of the cluster matches '\(id)'\n".utf8))
                    throw ExitCode.failure
                }
                key = revoked
            } else {
                let store = try Keys.open(data)
                key = try Keys.perform { () throws(KeyStore.KeyError) in try store.revoke(id) }
            }
            print("Revoked \(key.role.rawValue) key \(key.id)\(key.name.map { " (\($0))" } ?? "").")
        }
    }

    static func open(_ data: DataDirectoryOptions) throws -> KeyStore {
        try perform { () throws(KeyStore.KeyError) in try KeyStore(path: ServerConfiguration(dataDirectory: data.resolved).keysFile) }
    }

    static func cluster<T: Sendable>(_ url: String, _ body: @escaping @Sendable (ClusterKeys) async throws -> T) async throws -> T {
        do {
            return try await ClusterKeys.with(databaseURL: url, body)
        } catch {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            throw ExitCode.failure
        }
    }

    static func perform<T>(_ body: () throws(KeyStore.KeyError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            throw ExitCode.failure
        }
    }
}

/// `ralph-mobile-server demo-loop`: the `--demo` loop, run by the server in a process of its own (hidden).
struct DemoLoopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-loop",
        abstract: "Run the simulated ralph loop of --demo in a workspace (started by the server).",
        shouldDisplay: false
    )

    // Names distinct from the server's own options (--workspace, --demo-pace), which the root command would take.
    @Option(name: .customLong("dir"), help: "The demo workspace.")
    var workspace: String

    @Option(name: .customLong("event-pace"), help: "Seconds between events.")
    var pace: Double = 4

    @Option(name: .customLong("question-timeout"), help: "Seconds to wait for an answer.")
    var questionTimeout: Double = 60

    @Option(help: "Seconds between runs.")
    var rest: Double = 20

    @Option(name: .customLong("parent-pid"), help: "Stop when this process is no longer the parent.")
    var parentPID: Int32?

    func validate() throws {
        if pace <= 0 || questionTimeout <= 0 || rest < 0 { throw ValidationError("intervals must be positive") }
    }

    func run() async throws {
        var options = DemoLoop.Options(workspace: workspace)
        options.pace = pace
        options.questionTimeout = questionTimeout
        options.restBetweenRuns = rest
        options.parentPID = parentPID
        let demo = DemoLoop(options: options)
        // SIGTERM (stop from a client, or the server shutting down), SIGINT, SIGHUP: end the run with loop.terminate.
        let sources = [SIGTERM, SIGINT, SIGHUP].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { demo.stop() }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }
        try demo.start()
        await demo.waitUntilFinished()
    }
}
