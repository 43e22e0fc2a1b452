import ArgumentParser
import Foundation
import RalphAPI
import RalphMobileKit

/// `ralph-mobile conversations …`: list, create, rename, pin and delete conversations with an agent.
struct ConversationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conversations",
        abstract: "Conversations with Claude Code on the server: list, create, rename, pin, delete.",
        subcommands: [List.self, New.self, Show.self, Rules.self, Revoke.self, Rename.self, Pin.self, Unpin.self, Archive.self, Delete.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List conversations, newest activity first.")
        @OptionGroup var server: ServerOptions
        @Flag(help: "Only pinned conversations.") var pinned = false
        @Flag(name: .customLong("archived"), help: "Include archived conversations.") var archived = false
        @Option(help: "How many (1-200).") var limit = 30
        @Flag(help: "Print the server's JSON.") var json = false

        @MainActor
        func run() async throws {
            let theme = server.theme
            try await withClient(server) { client in
                let page = try await client.conversations(limit: limit, pinned: pinned ? true : nil, includeArchived: archived)
                if json { return say(try SessionsCommand.prettyJSON(page)) }
                if page.items.isEmpty { return say(theme.dim("no conversations yet — start one with `ralph-mobile chat --new --cwd <dir>`")) }
                for c in page.items { say(ChatFormat(theme: theme).row(c, width: FullScreen.size().columns)) }
                if page.hasMore { say(theme.dim("… more: use --limit")) }
            }
        }
    }

    struct New: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a conversation in a working directory inside the server's workspaces.")
        @OptionGroup var server: ServerOptions
        @Option(help: "The working directory (absolute, or relative to the server's first workspace).") var cwd: String
        @Option(help: "A title (default: from the first message).") var title: String?
        @Option(help: "The agent it runs: claude (the default) or codex (`ralph-mobile backends` lists them).") var backend: String?
        @Option(help: "The model to ask the CLI for.") var model: String?
        @Option(
            name: .customLong("permission-mode"),
            help: "default, or a mode the agent accepts (`ralph-mobile backends` lists them: plan, acceptEdits … for claude; untrusted, on-request, never for codex)."
        ) var permissionMode: String?
        @Option(help: "In a cluster, the host whose agent runs it, in that host's workspaces (its name or id; `ralph-mobile hosts` lists them).")
        var host: String?

        @MainActor
        func run() async throws {
            try await withClient(server) { client in
                let c = try await client.createConversation(
                    CreateConversationRequest(title: title, cwd: cwd, backend: backend, model: model, permissionMode: permissionMode, host: host))
                say(c.id)
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a conversation's messages (the newest page, or --all).")
        @OptionGroup var server: ServerOptions
        @Argument(help: "The conversation id.") var id: String
        @Flag(help: "Every message, not only the newest 50.") var all = false
        @Flag(help: "Print the messages as JSON.") var json = false

        @MainActor
        func run() async throws {
            try await withClient(server) { client in
                let format = ChatFormat(theme: server.theme, agent: try await client.conversation(id).backend)
                var page = try await client.messages(id, limit: 50)
                var messages = page.items
                while all, page.hasMore, let cursor = page.nextCursor {
                    page = try await client.messages(id, before: cursor, limit: 200)
                    messages = page.items + messages
                }
                if json { return say(try SessionsCommand.prettyJSON(messages)) }
                for message in messages { say(format.message(message)) }
            }
        }
    }

    struct Rules: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a conversation's permission mode (as the agent reports it), agent version and session rules."
        )
        @OptionGroup var server: ServerOptions
        @Argument(help: "The conversation id.") var id: String
        @Flag(help: "Print the rules as JSON.") var json = false

        @MainActor
        func run() async throws {
            let format = ChatFormat(theme: server.theme)
            try await withClient(server) { client in
                let c = try await client.conversation(id)
                if json { return say(try SessionsCommand.prettyJSON(c.sessionRules)) }
                say("agent: \(c.backend) \(c.agentVersion ?? "(version not reported yet)")")
                say(format.permissions(mode: c.agentPermissionMode ?? c.permissionMode, rules: c.sessionRules))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a session rule: the calls it covered ask again.")
        @OptionGroup var server: ServerOptions
        @Argument(help: "The conversation id.") var id: String
        @Argument(help: "The rule id (see `conversations rules`).") var rule: String

        @MainActor
        func run() async throws {
            try await withClient(server) { client in
                let revoked = try await client.revokeSessionRule(id, ruleID: rule)
                say("revoked \(revoked.id): \(revoked.rule.display)")
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a conversation's title.")
        @OptionGroup var target: ConversationTarget
        @Argument(help: "The new title.") var title: String
        @MainActor func run() async throws { try await ConversationsCommand.patch(target, PatchConversationRequest(title: title), "renamed") }
    }

    struct Pin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pin a conversation (kept on the server, for every device).")
        @OptionGroup var target: ConversationTarget
        @MainActor func run() async throws { try await ConversationsCommand.patch(target, PatchConversationRequest(pinned: true), "pinned") }
    }

    struct Unpin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unpin a conversation.")
        @OptionGroup var target: ConversationTarget
        @MainActor func run() async throws { try await ConversationsCommand.patch(target, PatchConversationRequest(pinned: false), "unpinned") }
    }

    struct Archive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Archive a conversation (hidden from the list unless --archived).")
        @OptionGroup var target: ConversationTarget
        @MainActor func run() async throws { try await ConversationsCommand.patch(target, PatchConversationRequest(archived: true), "archived") }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a conversation, its messages and its agent process.")
        @OptionGroup var target: ConversationTarget
        @Flag(help: "Do not ask for confirmation.") var yes = false

        @MainActor
        func run() async throws {
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else { throw fail(RalphMobileFailure(message: "deleting needs confirmation: run it in a terminal or pass --yes")) }
                Output.write("Delete conversation \(target.id) and all its messages? [y/N] ", to: STDOUT_FILENO)
                guard readLine()?.lowercased().hasPrefix("y") == true else { return say("kept") }
            }
            try await target.perform {
                try await $0.deleteConversation(target.id)
                return "deleted \(target.id)"
            }
        }
    }

    @MainActor
    static func patch(_ target: ConversationTarget, _ change: PatchConversationRequest, _ verb: String) async throws {
        try await target.perform {
            let c = try await $0.updateConversation(target.id, change)
            return "\(verb) \(c.id): \(c.title)"
        }
    }
}

/// `ralph-mobile approvals …`: the tool calls waiting for a person, answered one by one or in a batch.
struct ApprovalsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approvals",
        abstract: "Tool calls waiting for approval, in every conversation: list, allow, deny.",
        subcommands: [List.self, Allow.self, Deny.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List pending approvals (--all: every state).")
        @OptionGroup var server: ServerOptions
        @Flag(help: "Decided and cancelled ones too.") var all = false
        @Option(help: "Only this conversation.") var conversation: String?
        @Flag(help: "Print the server's JSON.") var json = false

        @MainActor
        func run() async throws {
            let format = ChatFormat(theme: server.theme)
            try await withClient(server) { client in
                let approvals = try await client.approvals(state: all ? nil : .pending, conversationID: conversation)
                if json { return say(try SessionsCommand.prettyJSON(approvals)) }
                if approvals.isEmpty { return say(server.theme.dim(all ? "no approvals" : "nothing waiting for approval")) }
                for approval in approvals {
                    say(format.approval(approval))
                    if approval.state == .pending, let diffs = approval.diffs, !diffs.isEmpty { say(format.diffs(diffs)) }
                }
            }
        }
    }

    struct Allow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Allow one or more pending tool calls.")
        @OptionGroup var server: ServerOptions
        @Argument(help: "Approval ids.") var ids: [String]
        @Flag(help: "Also allow, for the rest of the conversation, the calls its session rule covers (the same command, the same file); nothing more.")
        var session = false
        @MainActor func run() async throws { try await ApprovalsCommand.decide(server, ids, session ? .allowSession : .allow, message: nil) }
    }

    struct Deny: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deny one or more pending tool calls, telling the agent why.")
        @OptionGroup var server: ServerOptions
        @Argument(help: "Approval ids.") var ids: [String]
        @Option(help: "What the agent is told.") var message: String?
        @MainActor func run() async throws { try await ApprovalsCommand.decide(server, ids, .deny, message: message) }
    }

    /// One id: the single route (its error is the command's). Several: the batch route, a line per id.
    @MainActor
    static func decide(_ server: ServerOptions, _ ids: [String], _ decision: ApprovalDecision, message: String?) async throws {
        guard !ids.isEmpty else { throw fail(RalphMobileFailure(message: "give at least one approval id")) }
        let theme = server.theme
        try await withClient(server) { client in
            if ids.count == 1 {
                let approval = try await client.decide(ids[0], decision, message: message)
                return say("\(theme.good(approval.state.rawValue)) \(approval.id) \(approval.toolName)")
            }
            var failed = false
            for result in try await client.decide(ids, decision, message: message) {
                if let approval = result.approval {
                    say("\(theme.good(approval.state.rawValue)) \(approval.id) \(approval.toolName)")
                } else {
                    failed = true
                    say("\(theme.bad("failed")) \(result.id): \(result.error ?? "unknown error")")
                }
            }
            if failed { throw ExitCode.failure }
        }
    }
}
