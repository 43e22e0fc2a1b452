import Foundation
import Logging
import NIOCore
import RalphFiles

/// Everything `ralph-mobile-server` is configured with. Built by the command line, or directly by tests.
public struct ServerConfiguration: Sendable {
    /// Address to bind (`127.0.0.1` unless told otherwise).
    public var host = "127.0.0.1"
    /// TCP port; 0 picks a free one.
    public var port = 8080
    /// Workspace roots as given (relative paths are resolved against the current directory).
    public var workspaces: [String] = []
    /// Where keys, state and the demo workspace live.
    public var dataDirectory: String
    /// An admin key given on the command line or in `RALPH_MOBILE_API_KEY`.
    public var apiKey: String?
    /// A key for `GET /metrics` and nothing else (`--metrics-key`, `RALPH_MOBILE_METRICS_KEY`): what a Prometheus
    /// scraper presents as `Authorization: Bearer <key>`.
    public var metricsKey: String?
    /// Run the built-in ralph simulator in `<data-dir>/demo`.
    public var demo = false
    /// Seconds between the demo's events.
    public var demoPace: Double = 4
    /// The command that runs the demo loop in its own process: this executable's hidden `demo-loop` subcommand.
    public var demoCommand: [String] = [ServerConfiguration.currentExecutable(), "demo-loop"]
    /// Seconds between SSE heartbeat comments when a stream is idle.
    public var heartbeatInterval: Double = 15
    /// Catalog fallback intervals (seconds).
    public var pollInterval: Double = 2
    public var rescanInterval: Double = 10
    public var livenessInterval: Double = 1
    /// How far a slow SSE client may fall behind live delivery, in frames and in bytes, before it stops being fed live
    /// frames and reads what it missed from the durable log instead (then rejoins); never a reason to disconnect it.
    public var subscriberQueueCapacity = 4096
    public var subscriberQueueBytes = 1 << 20
    /// Seconds an SSE write may wait (the client reads nothing at all) before the connection is closed; the client
    /// resumes with Last-Event-ID when it reads again.
    public var streamStallTimeout: Double = 60
    /// Force polling instead of inotify (tests of the fallback).
    public var useInotify = true
    /// Seconds a detail request (`GET /api/sessions/{id}`, its iterations, a stream's state frame) waits for a run
    /// still being folded after a first start — it is folded before the others meanwhile — before answering `503
    /// unavailable: still reading` (the list never waits: its values are exact from the start).
    public var detailFoldWait: Double = 10
    /// Tests: the catalog's background folds wait until released (``RunCatalog/releaseBackgroundFolds()``).
    public var holdsBackgroundFolds = false
    /// The ralph executable `POST /api/sessions` runs (a path, or a name on PATH).
    public var ralphCommand = "ralph"
    /// ralph's user-scoped default config (`$HOME/.ralph/config.yml`, ralph ≥ 2.8), merged under each workspace's
    /// `ralph.yml` where the server reads config values (max iterations, RObot). nil: none.
    public var userConfigFile: String? = WorkspaceConfig.userDefaultsFile()
    /// Seconds between SIGTERM and SIGKILL when stopping a run.
    public var stopGrace: Double = 10
    /// Wrong keys one address may present per minute before its further attempts are refused (``FailureThrottle``).
    public var authFailureLimit = 10
    /// Seconds `POST /api/sessions` waits for ralph's events file before answering with a pending id.
    public var startTimeout: Double = 5
    /// Start runs as `ralph run --rpc` (live cost, tokens, context use, urgent steer); false for a ralph without RPC.
    public var ralphRPC = true
    /// Let an urgent steer of a discovered run write `.ralph/urgent-steer.json` (not a documented ralph interface).
    public var experimentalUrgentSteer = false
    /// The Claude Code CLI conversations run (a path, or a name on PATH), and flags added to every run of it.
    public var claudeCommand = "claude"
    public var claudeArguments: [String] = []
    /// The Codex CLI conversations with `backend: "codex"` run (`codex app-server`), flags added to every run of it,
    /// and the sandbox its commands run in.
    public var codexCommand = "codex"
    public var codexArguments: [String] = []
    public var codexSandbox = ChatBackend.defaultCodexSandbox
    /// The PostgreSQL database this server shares with the other hosts of a cluster (`--database`,
    /// `$RALPH_MOBILE_DATABASE_URL`); nil: the SQLite file of the data directory, and no cluster.
    public var databaseURL: String?
    /// This host's name in a cluster (`--host-name`); nil: the machine's name.
    public var hostName: String?
    /// Seconds without a heartbeat after which a host counts as offline.
    public var hostTimeout: Double = 5
    /// Variables added to (or replacing) the server's environment for agent processes.
    public var chatEnvironment: [String: String] = [:]
    /// Seconds without output (and no approval pending) before a turn is reported as stalled; it is never killed.
    public var chatStallAfter: Double = 300
    /// Seconds an agent process may sit without a turn before it is stopped (the next message resumes it).
    public var chatIdleStop: Double = 600
    /// Seconds an interrupted turn may take to end before its process is stopped.
    public var chatInterruptGrace: Double = 10
    /// Notifications: public URL, VAPID subject, silence threshold, APNs credentials.
    public var notifications = NotificationConfiguration()
    /// Serve the web dashboard from this directory instead of the copy built into the server (to edit it live).
    public var webRoot: String?
    /// Seconds a client has to send a complete request head, from its first byte (or from connecting).
    public var headerTimeout: Double = 10
    /// Seconds a connection with no request open is kept (keep-alive), and the longest pause in a request body. Longer
    /// than the 60 s clients such as AsyncHTTPClient keep an idle connection, so the client gives it up first.
    public var idleTimeout: Double = 75
    /// Connections served at once; beyond, new ones get `503`. nil: derived from the open-file limit
    /// (``FileDescriptorLimit/defaultMaxConnections(for:)``).
    public var maxConnections: Int?

    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
    }

    /// The default data directory: `$RALPH_MOBILE_DATA_DIR`, else `$XDG_DATA_HOME/ralph-mobile`, else
    /// `~/.local/share/ralph-mobile` (`~/Library/Application Support/ralph-mobile` on macOS).
    public static func defaultDataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let dir = environment["RALPH_MOBILE_DATA_DIR"], !dir.isEmpty { return dir }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/ralph-mobile" }
        let home = environment["HOME"] ?? NSHomeDirectory()
        #if os(macOS)
        return home + "/Library/Application Support/ralph-mobile"
        #else
        return home + "/.local/share/ralph-mobile"
        #endif
    }

    /// The path of the running executable.
    public static func currentExecutable() -> String {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }

    /// The demo workspace root (the demo project is `demo/ralph-demo` inside it).
    public var demoRoot: String { dataDirectory + "/demo" }
    public var demoWorkspace: String { demoRoot + "/ralph-demo" }
    public var keysFile: String { dataDirectory + "/keys.json" }
    /// The SQLite database of conversations.
    public var chatDatabase: String { dataDirectory + "/chat.sqlite" }
    /// The VAPID key pair of Web Push, made on first start.
    public var vapidKeyFile: String { dataDirectory + "/vapid-key.pem" }
    /// Browser logins of the web dashboard.
    public var webSessionsFile: String { dataDirectory + "/web-sessions.json" }
    /// Single-use pairing codes (their digests), shared with `ralph-mobile-server pair`.
    public var pairingFile: String { dataDirectory + "/pairing.json" }

    /// The connection limits in force: the configured ones, the connection limit derived when not given.
    public var connectionPolicy: ConnectionPolicy {
        ConnectionPolicy(
            headerTimeout: .nanoseconds(Int64(headerTimeout * 1e9)), idleTimeout: .nanoseconds(Int64(idleTimeout * 1e9)),
            maxConnections: maxConnections ?? FileDescriptorLimit.defaultMaxConnections()
        )
    }

    /// Whether the bind address only accepts local connections.
    public var isLoopbackOnly: Bool { Self.isLoopback(host) }

    public static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased()
        return h == "localhost" || h == "::1" || h == "[::1]" || h.hasPrefix("127.")
    }

    /// Resolves and checks the workspace roots: each must be an existing directory. Returns canonical paths.
    public func resolvedRoots(currentDirectory: String = FileManager.default.currentDirectoryPath) throws(StartupError) -> [String] {
        var roots: [String] = []
        let given = workspaces.isEmpty ? [currentDirectory] : workspaces
        for raw in given {
            let absolute = raw.hasPrefix("/") ? raw : FileSystem.join(currentDirectory, raw)
            guard let real = FileSystem.realPath(absolute), FileSystem.status(real)?.isDirectory == true else {
                throw StartupError("workspace '\(raw)' is not an existing directory")
            }
            if !roots.contains(real) { roots.append(real) }
        }
        if demo {
            if let real = FileSystem.realPath(demoRoot), !roots.contains(real) { roots.append(real) }
        }
        return roots
    }
}

/// A reason the server refuses to start, worded for the person who started it.
public struct StartupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
