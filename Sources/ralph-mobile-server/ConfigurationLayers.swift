import ArgumentParser
import Foundation

/// The server's settings in layers: a command-line flag, else its environment variable (where it has one), else the
/// configuration file, else the default.
///
/// The file's settings become command-line words (`--port=9000`) placed before the words given, for the options not
/// given on the command line nor by the environment; ArgumentParser then parses them all as usual, so a value from the
/// file is checked by the same code as a flag, and an option added to the command is settable in the file with no
/// code of its own (one line in `environmentVariables` if it also has an environment variable).
struct ConfigurationLayers {
    /// The environment variable the server reads for an option not given on the command line.
    static let environmentVariables: [String: String] = [
        "api-key": "RALPH_MOBILE_API_KEY",
        "data-dir": "RALPH_MOBILE_DATA_DIR",
        "database": "RALPH_MOBILE_DATABASE_URL",
    ]

    /// Options that exclude each other: one given on the command line (or by the environment) overrides the file's
    /// setting of every other of its group, as it would its own.
    static let exclusiveGroups: [Set<String>] = [["bind", "bind-all"]]

    /// Subcommands the file does not apply to: `service` names the file itself, `demo-loop` is started by the server.
    static let subcommandsWithoutFile: Set = ["service", "demo-loop"]

    /// Where one option's effective value came from.
    enum Source: Equatable {
        case flag
        case environment(String)
        case file(line: Int)
        case defaultValue
    }

    /// The words given on the command line, without the program's name.
    let given: [String]
    /// The words to parse: the file's settings and the words given.
    let arguments: [String]
    /// The server command's options.
    let options: CommandOptions
    /// The file read, if any; `filePath` is the one looked for.
    let file: ConfigurationFile?
    let filePath: String
    /// `--print-config` was given to the server command.
    let printConfig: Bool
    /// The subcommand given (`["keys", "create"]`), empty for the server itself.
    let subcommand: [String]
    /// The values of each option given on the command line (one empty string per flag given).
    private let givenValues: [String: [String]]
    /// The keys whose file setting became arguments.
    private let applied: Set<String>
    private let environment: [String: String]

    /// Reads the configuration file (`--config <path>` in `arguments`, else the default one if it exists) and layers
    /// it under `arguments`.
    init(arguments: [String], environment: [String: String], command: any ParsableCommand.Type) throws {
        let options = try CommandOptions.of(command)
        self.given = arguments
        self.options = options
        self.environment = environment

        // The pre-scan: which options the command line gives, its --config, the subcommand and where its words start.
        var givenValues: [String: [String]] = [:]
        var subcommand: [String] = []
        var level = options
        var insertion = 0
        var index = 0
        scan: while index < arguments.count {
            let word = arguments[index]
            index += 1
            if word == "--" { break }
            if word.hasPrefix("-"), word.count > 1 {
                let (spelling, attached) = Self.split(word)
                guard let option = level.option(spelled: spelling) ?? options.option(spelled: spelling) else { continue }
                var value = ""
                if option.takesValue {
                    if let attached {
                        value = attached
                    } else if index < arguments.count {
                        value = arguments[index]
                        index += 1
                    }
                }
                givenValues[option.key, default: []].append(value)
                continue
            }
            guard let next = level.subcommands[word] else { continue scan }
            subcommand.append(word)
            level = next
            insertion = index
        }
        self.subcommand = subcommand
        self.givenValues = subcommand.isEmpty ? givenValues : [:]
        printConfig = subcommand.isEmpty && givenValues["print-config"] != nil

        // The file: the one named must exist; the default one may be missing.
        let named = subcommand.isEmpty ? givenValues["config"]?.last : nil
        if let named, named.isEmpty { throw ConfigurationError(file: "--config", line: nil, key: nil, message: "needs a file's path") }
        filePath = named ?? ConfigurationFile.defaultPath(environment: environment)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: filePath, isDirectory: &isDirectory)
        if let named, !exists {
            throw ConfigurationError(file: named, line: nil, key: nil, message: "does not exist (named by --config)")
        }
        if exists && isDirectory.boolValue {
            throw ConfigurationError(file: filePath, line: nil, key: nil, message: "is a directory, not a configuration file")
        }
        if !exists || Self.subcommandsWithoutFile.contains(subcommand.first ?? "") {
            file = nil
            self.arguments = arguments
            applied = []
            return
        }
        let file = try ConfigurationFile.load(path: filePath, options: options, environment: environment)
        self.file = file

        // The file's settings not overridden, as words: the leaf command's own options after the subcommand's name,
        // the server's before it (a subcommand reads those as its parent's, e.g. `keys` reads --database).
        let overridden = Set(givenValues.keys).union(Self.environmentVariables.compactMap { key, variable in
            (environment[variable].map { !$0.isEmpty } ?? false) ? key : nil
        })
        var rootWords: [String] = []
        var leafWords: [String] = []
        var applied: Set<String> = []
        for setting in file.settings {
            let group = Self.exclusiveGroups.first { $0.contains(setting.key) } ?? [setting.key]
            guard overridden.isDisjoint(with: group) else { continue }
            let words = setting.values.map { $0.isEmpty ? "--\(setting.key)" : "--\(setting.key)=\($0)" }
            if !subcommand.isEmpty, level.option(key: setting.key) != nil {
                leafWords += words
            } else {
                rootWords += words
            }
            applied.insert(setting.key)
        }
        self.applied = applied
        self.arguments = rootWords + arguments[..<insertion] + leafWords + arguments[insertion...]
    }

    /// `--name=value` as (`--name`, `value`); anything else as itself and nil.
    private static func split(_ word: String) -> (String, String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    /// The file's line and key an error of the parse is about, when it names (as `--key`) an option set by the file:
    /// an ArgumentParser or validation message names its option that way.
    func fileError(explaining message: String) -> ConfigurationError? {
        guard let file else { return nil }
        var first: (String.Index, ConfigurationFile.Setting)?
        for setting in file.settings where applied.contains(setting.key) {
            let spellings = options.option(key: setting.key)?.spellings ?? ["--" + setting.key]
            for spelling in spellings {
                guard let found = Self.firstMention(of: spelling, in: message) else { continue }
                if first.map({ found < $0.0 }) ?? true { first = (found, setting) }
            }
        }
        guard let (_, setting) = first else { return nil }
        return ConfigurationError(file: file.path, line: setting.line, key: setting.key, message: message)
    }

    /// Where `spelling` (`--port`, `-p`) first appears in `message` as a whole word (not as the start of `--port-x`).
    private static func firstMention(of spelling: String, in message: String) -> String.Index? {
        var searchRange = message.startIndex..<message.endIndex
        while let found = message.range(of: spelling, range: searchRange) {
            let before = found.lowerBound == message.startIndex ? nil : message[message.index(before: found.lowerBound)]
            let after = found.upperBound == message.endIndex ? nil : message[found.upperBound]
            let wordCharacter = { (character: Character?) in character.map { $0.isLetter || $0.isNumber || $0 == "-" } ?? false }
            if !wordCharacter(before) && !wordCharacter(after) { return found.lowerBound }
            searchRange = found.upperBound..<message.endIndex
        }
        return nil
    }

    /// Where option `key`'s value comes from, and the value(s) as given (a flag: one empty string when set).
    func effective(_ option: CommandOption) -> (Source, [String]) {
        if let values = givenValues[option.key] { return (.flag, values) }
        if let variable = Self.environmentVariables[option.key], let value = environment[variable], !value.isEmpty {
            return (.environment(variable), [value])
        }
        if applied.contains(option.key), let setting = file?.settings.first(where: { $0.key == option.key }) {
            return (.file(line: setting.line), setting.values)
        }
        // A list's (or a flag's) default is none; an option without a default is not set.
        return (.defaultValue, option.defaultValue.map { [$0] } ?? [])
    }

    /// The effective configuration as a configuration file: every option shown by `--help` (and a hidden one when not
    /// at its default), its value, and where it came from; a secret commented out with its value redacted.
    func rendered() -> String {
        var lines = [
            "# The effective configuration of ralph-mobile-server (--print-config), usable as a configuration file.",
            "# Precedence: command-line flag > environment variable > configuration file > default.",
            "# Configuration file: \(filePath)" + (file == nil ? " (not found: none read)" : ""),
        ]
        for option in options.options where !ConfigurationFile.commandLineOnly.contains(option.key) {
            let (source, values) = effective(option)
            if !option.visible && source == .defaultValue { continue }
            let comment: String
            switch source {
            case .flag: comment = "flag"
            case .environment(let variable): comment = "environment \(variable)"
            case .file(let line): comment = "file, line \(line)"
            case .defaultValue: comment = "default"
            }
            var entry: String
            var commentedOut = false
            if !option.takesValue {
                entry = "\(option.key): \(values.isEmpty ? "false" : "true")"
            } else if option.repeating {
                let shown = values.map { value -> String in
                    if let redacted = Secrets.redactingPasswords(in: value) {
                        commentedOut = true
                        return Self.yamlScalar(redacted)
                    }
                    return Self.yamlScalar(value)
                }
                entry = "\(option.key): [\(shown.joined(separator: ", "))]"
                if Secrets.isSecret(option.key) && !values.isEmpty {
                    entry = "\(option.key): [<redacted>]"
                    commentedOut = true
                }
            } else if let value = values.last {
                if Secrets.isSecret(option.key) {
                    entry = "\(option.key): <redacted>"
                    commentedOut = true
                } else if let redacted = Secrets.redactingPasswords(in: value) {
                    entry = "\(option.key): \(Self.yamlScalar(redacted))"
                    commentedOut = true
                } else {
                    entry = "\(option.key): \(Self.yamlScalar(value))"
                }
            } else {
                entry = "\(option.key):"
                commentedOut = true
            }
            var note = comment
            if commentedOut { note += values.isEmpty ? ", not set" : ", secret redacted" }
            if commentedOut { entry = "# " + entry }
            let padding = String(repeating: " ", count: max(1, 44 - entry.count))
            lines.append(entry + padding + "# " + note)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `value` as a YAML scalar that reads back as the same string: plain when it is safe, else double-quoted. (The
    /// file gives an option the text of its value, so `8080` and `"8080"` mean the same.)
    static func yamlScalar(_ value: String) -> String {
        let special = CharacterSet(charactersIn: ":#{}[],&*!|>'\"%@`\\\t\n\r")
        let reserved: Set = ["", "~", "null", "true", "false", "yes", "no", "on", "off", "y", "n"]
        let needsQuotes =
            reserved.contains(value.lowercased()) || value.rangeOfCharacter(from: special) != nil
            || value.first.map { "-?".contains($0) } == true || value.contains(" ") || value.hasPrefix("~")
        guard needsQuotes else { return value }
        var escaped = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case "\r": escaped += "\\r"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return "\"\(escaped)\""
    }
}

extension RalphMobileServerCommand {
    /// The entry point: the configuration file layered under the command line, then ArgumentParser's parse and run as
    /// usual; `--print-config` prints the effective configuration instead of starting the server.
    static func main() async {
        let layers: ConfigurationLayers
        do {
            layers = try ConfigurationLayers(
                arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment, command: Self.self)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            Self.exit(withError: ExitCode.validationFailure)
        }
        do {
            var command = try await asyncParseAsRoot(layers.arguments)
            if let server = command as? Self, server.printConfig {
                print(layers.rendered(), terminator: "")
                return
            }
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // A value from the file that the parse refused: said with the file's name, line and key.
            if exitCode(for: error) != .success, let fileError = layers.fileError(explaining: message(for: error)) {
                FileHandle.standardError.write(Data("error: \(fileError.description)\n".utf8))
                Self.exit(withError: ExitCode.validationFailure)
            }
            Self.exit(withError: error)
        }
    }
}
