import ArgumentParser
import Foundation
import RalphAPI
import RalphMobileKit

/// `ralph-mobile backends`: the agents the server runs conversations with, as its health check reports them.
struct BackendsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backends",
        abstract: "The agents conversations can run (claude, codex): version, permission modes, or why one cannot be used.",
        discussion: "Start a conversation with one: `ralph-mobile chat --new --cwd <dir> --backend codex`.",
        aliases: ["agents"]
    )

    @OptionGroup var server: ServerOptions
    @Flag(help: "Print the server's JSON (the agents of /api/health).") var json = false

    @MainActor
    func run() async throws {
        let format = ChatFormat(theme: server.theme)
        try await withClient(server) { client in
            let agents = try await client.health().agents ?? []
            if json { return say(try SessionsCommand.prettyJSON(agents)) }
            if agents.isEmpty { return say(server.theme.dim("the server lists no agents (an older server: its conversations run claude)")) }
            say(format.agents(agents))
        }
    }
}

extension ChatFormat {
    /// Each agent on a line (name, version, command), its permission modes under it, or why it cannot be used.
    func agents(_ agents: [AgentInfo]) -> String {
        let width = agents.map(\.name.count).max() ?? 6
        return agents.map { agent in
            let name = Text.pad(theme.accent(agent.name), width)
            if let error = agent.error, error.hasPrefix("still asking ") {
                return "\(name)  " + theme.paint("still being checked", Theme.gold) + theme.dim(" — \(error); ask again in a moment")
            }
            guard agent.error == nil else {
                let error = agent.error ?? ""
                let why = agent.command.isEmpty || error.contains(agent.command) ? error : "looked for \(agent.command): \(error)"
                return "\(name)  " + theme.bad("not available") + theme.dim(" — " + why)
            }
            let modes = [agent.name == "codex" ? "untrusted (default)" : "default"] + agent.permissionModes.filter { $0 != "default" && $0 != "untrusted" }
            return "\(name)  \(agent.version ?? "(version unknown)")  " + theme.dim(agent.command) + "\n"
                + String(repeating: " ", count: width + 2) + theme.dim("permission modes: " + modes.joined(separator: ", "))
        }
        .joined(separator: "\n")
    }
}
