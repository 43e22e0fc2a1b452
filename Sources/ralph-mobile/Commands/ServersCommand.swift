import ArgumentParser
import Foundation
import RalphAPI
import RalphMobileKit

/// `ralph-mobile servers add|list|use|remove`: the servers this terminal knows.
struct Servers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage saved servers (kept in the config directory; keys in a 0600 secrets file).",
        subcommands: [Add.self, List.self, Use.self, Remove.self],
        defaultSubcommand: List.self
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a server and save it.",
            discussion: "The server must answer its health check and, if it requires a key, accept the one given. The first server added becomes the default."
        )

        @Argument(help: "The server's URL, e.g. http://mybox:8080.")
        var url: String

        @Option(help: "A short name to refer to it (default: host:port).")
        var name: String?

        @Option(name: .customLong("api-key"), help: ArgumentHelp("Its API key, if it requires one (or set RALPH_MOBILE_API_KEY).", valueName: "key"))
        var apiKey: String?

        @MainActor
        func run() async throws {
            let key = apiKey ?? ProcessInfo.processInfo.environment["RALPH_MOBILE_API_KEY"]
            let (profile, isDefault, client) = try await Config.withProfiles { profiles in
                let profile = try await profiles.add(name: name, url: url, apiKey: key)
                return (profile, profiles.active?.id == profile.id, try? profiles.client(for: profile))
            }
            say("saved \(profile.name) → \(profile.url)\(profile.hasKey ? " (with key)" : "")\(isDefault ? ", the default server" : "")")
            // What its conversations can run (details: `ralph-mobile backends`).
            if let agents = try? await client?.health().agents, !agents.isEmpty {
                say("chat backends: " + agents.map(Servers.describe).joined(separator: ", "))
            }
        }
    }

    /// `claude 2.1.330`, `codex (not available)`, `claude (still being checked)`.
    static func describe(_ agent: AgentInfo) -> String {
        guard let error = agent.error else { return agent.name + (agent.version.map { " " + $0 } ?? "") }
        return agent.name + (error.hasPrefix("still asking ") ? " (still being checked)" : " (not available)")
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List saved servers (* marks the default).")

        @Flag(name: .customLong("no-color"), help: "No colors.")
        var noColor = false

        @MainActor
        func run() async throws {
            let profiles = try await Config.withProfiles { $0 }
            guard !profiles.profiles.isEmpty else {
                say("no saved servers — add one with `ralph-mobile servers add <url> [--api-key <key>]`")
                return
            }
            let theme = Theme.choose(noColor: noColor)
            let width = max(4, profiles.profiles.map { Text.width($0.name) }.max() ?? 4)
            for profile in profiles.profiles {
                let mark = profile.id == profiles.active?.id ? theme.accent("*") : " "
                say("\(mark) \(Text.pad(profile.name, width))  \(profile.url)\(profile.hasKey ? theme.dim("  (key saved)") : "")")
            }
        }
    }

    struct Use: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a saved server the default.")

        @Argument(help: "The server's name.")
        var name: String

        @MainActor
        func run() async throws {
            try await Config.withProfiles { try $0.use(name) }
            say("\(name) is now the default server")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget a saved server and its key.")

        @Argument(help: "The server's name.")
        var name: String

        @MainActor
        func run() async throws {
            try await Config.withProfiles { try $0.remove(name) }
            say("removed \(name)")
        }
    }
}
