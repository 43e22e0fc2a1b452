import AgentRunner
import Foundation
import Logging
import RalphAPI

/// An agent CLI conversations can use: its command and the flags of `design/CHAT.md`.
public struct ChatBackend: Sendable, Hashable {
    public var name: String
    /// A path, or a name looked up on `PATH`.
    public var command: String
    /// Flags given to every process (before `--resume`, `--model`, `--permission-mode`).
    public var arguments: [String]
    /// The permission modes assumed when the CLI's `--help` cannot be read (those of the version tested).
    public var knownPermissionModes: [String]

    public init(name: String, command: String, arguments: [String], knownPermissionModes: [String] = []) {
        self.name = name
        self.command = command
        self.arguments = arguments
        self.knownPermissionModes = knownPermissionModes
    }

    /// Claude Code, headless, with live approvals on stdio.
    public static func claude(command: String = "claude", extraArguments: [String] = []) -> ChatBackend {
        ChatBackend(
            name: "claude", command: command,
            arguments: [
                "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
                "--permission-prompt-tool", "stdio",
            ] + extraArguments,
            knownPermissionModes: ["acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"]
        )
    }

    /// The adapter that starts this backend's processes. Every backend speaks Claude's stream-json today; a CLI with
    /// its own protocol (Codex, issue 23) gets its own ``AgentAdapter`` here.
    var adapter: any AgentAdapter { ClaudeAdapter(name: name, command: command, arguments: arguments) }
}

/// What every conversation worker shares.
struct ChatContext: Sendable {
    let store: ChatStore
    let chatHub: ChatHub
    let eventHub: EventHub
    let adapter: any AgentAdapter
    let environment: [String: String]
    let terminateGrace: Duration
    let logger: Logger
    let encoder: ChatEventEncoder
    /// Told after a step recorded notifications (``ChatNotificationRules``) in its transaction.
    let notificationsRecorded: @Sendable () -> Void
}

/// Encodes an event's data the way it is stored and sent (``WireJSON``).
struct ChatEventEncoder: Sendable {
    func encode(_ event: ChatEvent) throws -> Data {
        try event.encodedData(with: WireJSON.encoder())
    }
}
