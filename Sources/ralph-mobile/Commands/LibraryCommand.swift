import ArgumentParser
import Foundation
import RalphAPI
import RalphMobileKit

/// `ralph-mobile library …`: what a workspace holds.
struct LibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "List what a workspace holds: configs, prompts, presets, hats, skills, tasks, loops, memories, merge queue.",
        subcommands: [Configs.self, Prompts.self, Presets.self, Hats.self, Skills.self, Tasks.self, Loops.self, Memories.self, MergeQueue.self]
    )

    struct Options: ParsableArguments {
        @OptionGroup var server: ServerOptions

        @Option(help: ArgumentHelp("Which workspace (a root the server watches); default: its first.", valueName: "dir"))
        var workspace: String?

        @Flag(help: "Print the server's JSON.")
        var json = false

        /// Prints the items as JSON, as rows, or says there are none.
        @MainActor
        func list<Item: Encodable>(_ noun: String, _ fetch: (RalphClient) async throws -> [Item], row: @escaping (Item, Theme) -> [String]) async throws {
            let theme = server.theme
            try await withClient(server) { client in
                let items = try await fetch(client)
                if json {
                    say(try SessionsCommand.prettyJSON(items))
                } else if items.isEmpty {
                    say(theme.dim("no \(noun)\(workspace.map { " in \($0)" } ?? "")"))
                } else {
                    for line in Table.lines(items.map { row($0, theme) }) { say(line) }
                }
            }
        }
    }

    struct Configs: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Ralph configs (ralph.yml and friends).")
        @OptionGroup var options: Options

        @MainActor
        func run() async throws {
            try await options.list("configs", { try await $0.configs(workspace: options.workspace) }) { item, theme in [theme.accent(item.path), item.description] }
        }
    }

    struct Prompts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Prompt files.")
        @OptionGroup var options: Options

        @MainActor
        func run() async throws {
            try await options.list("prompts", { try await $0.prompts(workspace: options.workspace) }) { item, theme in [theme.accent(item.path), theme.dim(Text.cut(item.preview, 60))] }
        }
    }

    struct Presets: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Presets (usable as `start --config builtin:<name>`).")
        @OptionGroup var options: Options

        @MainActor
        func run() async throws {
            try await options.list("presets", { try await $0.presets(workspace: options.workspace) }) { item, theme in [theme.accent(item.name), item.description] }
        }
    }

    struct Hats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hats defined by the workspace's configs and presets.")
        @OptionGroup var options: Options

        @MainActor
        func run() async throws {
            try await options.list("hats", { try await $0.hats(workspace: options.workspace) }) { item, theme in
                [theme.paint("\(item.emoji.isEmpty ? "■" : item.emoji) \(item.name)", item.color), theme.dim(item.triggers.joined(separator: ",") + " → " + item.publishes.joined(separator: ",")), Text.cut(item.description, 60)]
            }
        }
    }

    struct Skills: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Skills ralph can load.")
        @OptionGroup var options: Options

        @MainActor
        func run() async throws {
            try await options.list("skills", { try await $0.skills(workspace: options.workspace) }) { item, theme in
                [theme.accent(item.name), theme.dim(item.source), Text.cut(item.description, 70)]
            }
        }
    }

    struct Tasks: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Tasks of the workspace's task list.")
        @OptionGroup var options: Options

        @Option(help: "Only tasks with this status (open, in_progress, closed, …).")
        var status: String?

        @MainActor
        func run() async throws {
            try await options.list("tasks", { try await $0.tasks(status: status, workspace: options.workspace).tasks }) { item, theme in
                // ralph ≥ 2.10: the stable key, and when work started.
                [
                    theme.accent(item.id), item.status == "closed" ? theme.good(item.status) : item.status, "P\(item.priority)", item.title,
                    item.key.map { theme.dim("key \($0)") } ?? "", item.startedAt.map { theme.dim("started \(Text.dateTime($0))") } ?? "",
                ]
            }
        }
    }

    struct Loops: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Parallel loops (worktrees) from ralph's registry.")
        @OptionGroup var options: Options

        @MainActor
        func run() async throws {
            try await options.list("loops", { try await $0.loops(workspace: options.workspace) }) { item, theme in
                [theme.accent(item.id), item.status, "pid \(item.pid)", Text.dateTime(item.startedAt), Text.cut(item.prompt, 50)]
            }
        }
    }

    struct Memories: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The workspace's memories (.ralph/agent/memories.md).")
        @OptionGroup var options: Options

        @MainActor
        func run() async throws {
            try await options.list("memories", { try await $0.memories(workspace: options.workspace).entries }) { item, theme in
                [theme.accent(item.id), theme.dim(item.type), Text.cut(item.content, 70)]
            }
        }
    }

    struct MergeQueue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "merge-queue", abstract: "Loops waiting to be merged, and merged ones.")
        @OptionGroup var options: Options

        @MainActor
        func run() async throws {
            try await options.list("merge-queue entries", { client in
                let queue = try await client.mergeQueue(workspace: options.workspace)
                return queue.pending + queue.completed
            }) { item, theme in
                [theme.accent(item.id), item.state, Text.dateTime(item.updatedAt), item.commit.map { String($0.prefix(10)) } ?? theme.dim("—"), Text.cut(item.prompt, 50)]
            }
        }
    }
}

/// Columns padded to the widest cell (the last column is left as it is).
enum Table {
    static func lines(_ rows: [[String]]) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        var widths = Array(repeating: 0, count: columns)
        for row in rows { for (i, cell) in row.enumerated() where i < row.count - 1 { widths[i] = max(widths[i], Text.width(cell)) } }
        return rows.map { row in
            row.enumerated().map { i, cell in i < row.count - 1 ? Text.pad(cell, widths[i]) : cell }.joined(separator: "  ")
        }
    }
}
