import Foundation
import RalphAPI

extension SettingsModel {
    /// Every agent the server can run conversations with, in its order, labelled with its name in words: `Claude Code` —
    /// `claude 2.1.330 · modes default, acceptEdits, plan`; `Codex` — `Not available: looked for codex: …`.
    public var agentRows: [SettingsRow] {
        (app.health?.agents ?? []).map { agent in
            let choice = ChatBackendChoice(agent)
            let command = (agent.command.isEmpty ? agent.name : agent.command) + (agent.version.map { " " + $0 } ?? "")
            let value = choice.unavailableText ?? command + " · modes " + choice.permissionModes.joined(separator: ", ")
            return SettingsRow(choice.title, value, monospaced: choice.isUsable)
        }
    }
}
