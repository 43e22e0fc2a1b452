import ArgumentParser
import Foundation
import RalphAPI
import RalphMobileKit

@main
struct RalphMobileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ralph-mobile",
        abstract: "Watch and steer ralph loops on a Ralph Mobile server, from the terminal.",
        discussion: """
            The server is --server (a URL or the name of a saved server), else the one chosen with `servers use`, \
            else $RALPH_MOBILE_URL, else http://127.0.0.1:8080.

            Examples:
              ralph-mobile servers add http://mybox:8080 --name box --api-key rmk_…
              ralph-mobile sessions
              ralph-mobile sessions --host alpha   one host's runs, in a cluster
              ralph-mobile hosts               the hosts of the cluster, online or not
              ralph-mobile watch 241f          live dashboard (p pause, s stop, q quit)
              ralph-mobile events 241f --json  one JSON event per line
              ralph-mobile chat --new --cwd ~/code/app    talk to Claude Code (a allow, d deny)
              ralph-mobile chat --new --cwd ~/code/app --backend codex    … or to Codex
              ralph-mobile backends            the agents the server runs, their versions and modes
              ralph-mobile approvals           tool calls waiting for you
              ralph-mobile auto-reply start 9c2e --preset quick   keep a conversation going
            """,
        version: RalphMobileVersion.current,
        subcommands: [
            Servers.self, SessionsCommand.self, HostsCommand.self, StatusCommand.self, WatchCommand.self, EventsCommand.self, PauseCommand.self, ResumeCommand.self,
            StopCommand.self, EmitCommand.self, SteerCommand.self, StartCommand.self, LogCommand.self, QuestionsCommand.self, AnswerCommand.self,
            LibraryCommand.self, ChatCommand.self, ConversationsCommand.self, BackendsCommand.self, ApprovalsCommand.self, AutoReplyCommand.self, NotifyCommand.self,
        ]
    )
}

/// Options every command that talks to a server takes.
struct ServerOptions: ParsableArguments {
    @Option(name: .customLong("server"), help: ArgumentHelp("A server URL, or the name of a saved server.", valueName: "url|name"))
    var server: String?

    @Option(name: .customLong("api-key"), help: ArgumentHelp("The API key (or set RALPH_MOBILE_API_KEY).", valueName: "key"))
    var apiKey: String?

    @Flag(name: .customLong("no-color"), help: "No colors (also NO_COLOR).")
    var noColor = false

    var theme: Theme { Theme.choose(noColor: noColor) }

    /// The client for the chosen server.
    @MainActor
    func client() throws -> RalphClient {
        let environment = ProcessInfo.processInfo.environment
        let key = apiKey ?? environment["RALPH_MOBILE_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        let profiles = try Config.profiles()
        if let server {
            if let profile = profiles.profile(named: server) { return try withKey(profiles.client(for: profile), key) }
            return try RalphClient(baseURL: server, apiKey: key)
        }
        if let profile = profiles.active { return try withKey(profiles.client(for: profile), key) }
        return try RalphClient(baseURL: environment["RALPH_MOBILE_URL"] ?? "http://127.0.0.1:8080", apiKey: key)
    }

    private func withKey(_ client: RalphClient, _ key: String?) throws -> RalphClient {
        guard let key else { return client }
        return try RalphClient(baseURL: client.baseURL, apiKey: key)
    }
}

/// Where the terminal client keeps its servers and keys: `$RALPH_MOBILE_CONFIG_DIR`, else
/// `$XDG_CONFIG_HOME/ralph-mobile`, else `~/.config/ralph-mobile`.
enum Config {
    static var directory: String {
        let environment = ProcessInfo.processInfo.environment
        if let dir = environment["RALPH_MOBILE_CONFIG_DIR"], !dir.isEmpty { return dir }
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty { return xdg + "/ralph-mobile" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.config/ralph-mobile"
    }

    @MainActor
    static func profiles() throws -> ServerProfiles {
        try ServerProfiles(file: directory + "/servers.json", secrets: FileSecretStore(path: directory + "/secrets.json"))
    }

    /// Runs `body` with the saved servers, turning errors into a message and exit code 1.
    @MainActor
    static func withProfiles<T>(_ body: (ServerProfiles) async throws -> T) async throws -> T {
        do {
            return try await body(try profiles())
        } catch {
            throw fail(error)
        }
    }
}

/// Prints an error the way the terminal client reports them, and exits 1.
func fail(_ error: any Error, client: RalphClient? = nil) -> ExitCode {
    let message: String
    switch error {
    case RalphClientError.unreachable:
        message = "cannot reach \(client?.baseURL ?? "the server") — is ralph-mobile-server running there? (\(error))"
    case RalphClientError.unauthorized:
        message = "\(client?.baseURL ?? "the server") refused the API key. Pass --api-key, set RALPH_MOBILE_API_KEY, or save it with `ralph-mobile servers add <url> --api-key <key>`."
    case RalphClientError.hostOffline:
        message = "\(error) (`ralph-mobile hosts` shows which hosts are online)"
    default:
        message = "\(error)"
    }
    Output.write("error: \(message)\n", to: STDERR_FILENO)
    return ExitCode.failure
}

/// Runs `body` with the chosen server's client, turning errors into a message and exit code 1.
@MainActor
func withClient(_ options: ServerOptions, _ body: (RalphClient) async throws -> Void) async throws {
    let client: RalphClient
    do {
        client = try options.client()
    } catch {
        throw fail(error)
    }
    do {
        try await body(client)
    } catch let error as ExitCode {
        throw error
    } catch {
        throw fail(error, client: client)
    }
}

/// Writes a line to stdout right away (pipes included).
func say(_ text: String) {
    Output.write(text + "\n", to: STDOUT_FILENO)
}
