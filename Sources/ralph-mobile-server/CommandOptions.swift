import ArgumentParser
import Foundation

/// One named option of a command as ArgumentParser itself describes it: what the configuration file, the pre-scan of
/// the command line and `--print-config` need to know of it.
///
/// The description comes from ArgumentParser's own dump of the command (`--experimental-dump-help`), so an option
/// added to the command is known here with no code of its own.
struct CommandOption: Sendable, Equatable {
    /// The long name without `--`: the option's key in the configuration file.
    let key: String
    /// Every name it is given by on the command line, with its dashes (`--port`, `-p`).
    let spellings: [String]
    /// An option that takes a value (`--port 8080`), rather than a flag (`--demo`).
    let takesValue: Bool
    /// Given several times for several values (`--workspace a --workspace b`).
    let repeating: Bool
    /// The default as ArgumentParser shows it (`8080`, `10.0`); nil when there is none (an optional, a flag, a list).
    let defaultValue: String?
    /// Shown by `--help` (hidden options are for tests and tuning).
    let visible: Bool
}

/// The named options of a command and of each of its subcommands, from ArgumentParser's description of it.
struct CommandOptions: Sendable {
    /// The command's own options, in the order `--help` lists them; `--help` and `--version` left out.
    let options: [CommandOption]
    /// The subcommands by name.
    let subcommands: [String: CommandOptions]

    /// The option a command-line word names (`--port`, `-p`), if any.
    func option(spelled spelling: String) -> CommandOption? {
        options.first { $0.spellings.contains(spelling) }
    }

    /// The option whose long name (configuration key) is `key`.
    func option(key: String) -> CommandOption? {
        options.first { $0.key == key }
    }

    /// The options of `command` and its subcommands.
    static func of(_ command: any ParsableCommand.Type) throws -> CommandOptions {
        let dump = command._dumpHelp()
        do {
            let tool = try JSONDecoder().decode(DumpedTool.self, from: Data(dump.utf8))
            return CommandOptions(tool.command)
        } catch {
            throw DescriptionError(description: "cannot read ArgumentParser's description of the command's options: \(error)")
        }
    }

    private init(_ command: DumpedCommand) {
        let builtIn: Set = ["help", "version"]
        options = (command.arguments ?? []).compactMap { argument in
            guard argument.kind != "positional", let names = argument.names,
                let long = names.first(where: { $0.kind == "long" })?.name, !builtIn.contains(long)
            else { return nil }
            return CommandOption(
                key: long,
                spellings: names.map { ($0.kind == "short" ? "-" : ($0.kind == "long" ? "--" : "-")) + $0.name },
                takesValue: argument.kind == "option",
                repeating: argument.isRepeating ?? false,
                defaultValue: argument.defaultValue,
                visible: argument.shouldDisplay ?? true
            )
        }
        var subcommands: [String: CommandOptions] = [:]
        for subcommand in command.subcommands ?? [] {
            subcommands[subcommand.commandName] = CommandOptions(subcommand)
        }
        self.subcommands = subcommands
    }

    /// Why the command's options could not be described.
    struct DescriptionError: Error, CustomStringConvertible {
        let description: String
    }
}

/// ArgumentParser's JSON description of a command (its `ToolInfoV0`): the parts read here.
private struct DumpedTool: Decodable {
    let command: DumpedCommand
}

/// One command of the description.
private struct DumpedCommand: Decodable {
    /// One argument of a command.
    struct Argument: Decodable {
        /// One of its names: kind `long`, `short` or `longWithSingleDash`.
        struct Name: Decodable {
            let kind: String
            let name: String
        }

        /// `option`, `flag` or `positional`.
        let kind: String
        let names: [Name]?
        let isRepeating: Bool?
        let defaultValue: String?
        let shouldDisplay: Bool?
    }

    let commandName: String
    let arguments: [Argument]?
    let subcommands: [DumpedCommand]?
}
