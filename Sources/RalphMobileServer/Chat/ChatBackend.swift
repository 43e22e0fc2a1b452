import AgentRunner
import Foundation
import Logging
import RalphAPI
import RalphFiles

/// An agent CLI conversations can use: its command, its flags, and the adapter that speaks its protocol.
public struct ChatBackend: Sendable, Hashable {
    /// Which protocol the CLI speaks: each has its own ``AgentAdapter``.
    public enum Kind: Sendable, Hashable {
        /// Claude Code's stream-json (`design/CHAT.md`).
        case claude
        /// Codex's `app-server` JSON-RPC; commands run in `sandbox`.
        case codex(sandbox: String)
    }

    public var name: String
    public var kind: Kind
    /// A path, or a name looked up on `PATH`.
    public var command: String
    /// Flags given to every process (for Claude before `--resume`, `--model`, `--permission-mode`).
    public var arguments: [String]
    /// The permission modes assumed when the CLI's `--help` lists none (those of the version tested; Codex's
    /// approval policies).
    public var knownPermissionModes: [String]

    public init(name: String, kind: Kind, command: String, arguments: [String], knownPermissionModes: [String] = []) {
        self.name = name
        self.kind = kind
        self.command = command
        self.arguments = arguments
        self.knownPermissionModes = knownPermissionModes
    }

    /// Claude Code, headless, with live approvals on stdio.
    public static func claude(command: String = "claude", extraArguments: [String] = []) -> ChatBackend {
        ChatBackend(
            name: "claude", kind: .claude, command: command,
            arguments: [
                "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
                "--permission-prompt-tool", "stdio",
            ] + extraArguments,
            knownPermissionModes: ["acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"]
        )
    }

    /// The default sandbox of Codex's commands.
    public static let defaultCodexSandbox = "workspace-write"
    /// The sandboxes Codex knows.
    public static let codexSandboxes = ["read-only", "workspace-write", "danger-full-access"]

    /// Codex's app server over stdio. `unified_exec` is off so that a command runs to its end inside its turn and its
    /// output comes with it (with it on, Codex hands a long command back to the model after 10 s and reports it after
    /// the turn, without the output already read).
    public static func codex(command: String = "codex", extraArguments: [String] = [], sandbox: String = defaultCodexSandbox) -> ChatBackend {
        ChatBackend(
            name: "codex", kind: .codex(sandbox: sandbox), command: command, arguments: ["app-server", "--disable", "unified_exec"] + extraArguments,
            knownPermissionModes: CodexAdapter.approvalPolicies
        )
    }

    /// The adapter that starts this backend's processes.
    var adapter: any AgentAdapter {
        switch kind {
        case .claude: ClaudeAdapter(name: name, command: command, arguments: arguments)
        case .codex(let sandbox):
            CodexAdapter(name: name, command: command, arguments: arguments, sandbox: sandbox, clientVersion: RalphMobileVersion.current)
        }
    }

    /// Why this backend cannot run here although its CLI answers, or nil: Codex's sandboxes but `danger-full-access`
    /// need bubblewrap on Linux (without it every sandboxed command fails).
    func unmetRequirement(environment: [String: String]) -> String? {
        #if os(Linux)
        guard case .codex(let sandbox) = kind, sandbox != "danger-full-access" else { return nil }
        let path = environment["PATH"] ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let found = path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/bwrap") }
        return found ? nil : "codex's \(sandbox) sandbox needs bubblewrap (bwrap) on PATH; install it, or start the server with --codex-sandbox danger-full-access"
        #else
        return nil
        #endif
    }
}

/// What every conversation worker shares.
struct ChatContext: Sendable {
    let store: ChatStore
    let chatHub: ChatHub
    let eventHub: EventHub
    /// The adapters by backend name; a conversation uses its own backend's.
    let adapters: [String: any AgentAdapter]
    let environment: [String: String]
    /// The workspace roots: what the diffs of file edits may read.
    let roots: WorkspaceRoots
    let terminateGrace: Duration
    let logger: Logger
    let encoder: ChatEventEncoder
    /// Told after a step recorded notifications (``ChatNotificationRules``) in its transaction.
    let notificationsRecorded: @Sendable () -> Void
    /// Where turns, approvals and agent processes are counted (nil: not counted, a service built by a test).
    let metrics: ServerMetrics?
}

/// Encodes an event's data the way it is stored and sent (``WireJSON``).
struct ChatEventEncoder: Sendable {
    func encode(_ event: ChatEvent) throws -> Data {
        try event.encodedData(with: WireJSON.encoder())
    }
}
