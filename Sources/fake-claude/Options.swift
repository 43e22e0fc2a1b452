/// The `claude` flags the double understands, parsed the way the real CLI (commander.js) does: `--flag value` or
/// `--flag=value`, variadic tool lists that run until the next option, and "error: unknown option '…'" (exit 1) for
/// anything else.
struct Options {
    enum OutputFormat: String { case text, json, streamJSON = "stream-json" }
    enum InputFormat: String { case text, streamJSON = "stream-json" }

    static let defaultModel = "claude-sonnet-4-5-20250929"
    /// The `--permission-mode` choices the real CLI lists (in its order).
    static let permissionModeChoices = ["acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"]
    /// The choices plus `default`, which the real CLI also takes without listing it.
    static let acceptedPermissionModes = permissionModeChoices + ["default"]

    var print = false
    var prompt: String?
    var outputFormat = OutputFormat.text
    var inputFormat = InputFormat.text
    var verbose = false
    var includePartialMessages = false
    var permissionPromptTool: String?
    var resume: String?
    var model = Options.defaultModel
    var permissionMode = "default"
    var allowedTools: [String] = []
    var disallowedTools: [String] = []
    var replayUserMessages = false

    /// Whether "ask" decisions go to the host over the stdio control protocol.
    var asksOverStdio: Bool { permissionPromptTool == "stdio" && inputFormat == .streamJSON }

    /// Parses `arguments` (without the program name). On error, returns the message the CLI prints to stderr.
    static func parse(_ arguments: [String]) -> Result<Options, UsageError> {
        var options = Options()
        var i = 0
        while i < arguments.count {
            var arg = arguments[i]
            var inlineValue: String?
            if arg.hasPrefix("--"), let equals = arg.firstIndex(of: "=") {
                inlineValue = String(arg[arg.index(after: equals)...])
                arg = String(arg[..<equals])
            }
            func value() -> String? {
                if let inlineValue { return inlineValue }
                i += 1
                return i < arguments.count ? arguments[i] : nil
            }
            func list() -> [String] {
                var items = inlineValue.map { [$0] } ?? []
                while i + 1 < arguments.count, !arguments[i + 1].hasPrefix("-") {
                    i += 1
                    items.append(arguments[i])
                }
                return items.flatMap(Options.rules(in:))
            }
            func missing(_ flag: String) -> UsageError { UsageError("error: option '\(flag)' argument missing") }
            switch arg {
            case "-p", "--print": options.print = true
            case "--verbose": options.verbose = true
            case "--include-partial-messages": options.includePartialMessages = true
            case "--replay-user-messages": options.replayUserMessages = true
            case "--dangerously-skip-permissions": options.permissionMode = "bypassPermissions"
            case "--output-format":
                guard let v = value() else { return .failure(missing("--output-format <format>")) }
                guard let format = OutputFormat(rawValue: v) else {
                    return .failure(UsageError("error: option '--output-format <format>' argument '\(v)' is invalid. Allowed choices are text, json, stream-json."))
                }
                options.outputFormat = format
            case "--input-format":
                guard let v = value() else { return .failure(missing("--input-format <format>")) }
                guard let format = InputFormat(rawValue: v) else {
                    return .failure(UsageError("error: option '--input-format <format>' argument '\(v)' is invalid. Allowed choices are text, stream-json."))
                }
                options.inputFormat = format
            case "--permission-prompt-tool":
                guard let v = value() else { return .failure(missing("--permission-prompt-tool <tool>")) }
                options.permissionPromptTool = v
            case "-r", "--resume":
                guard let v = value() else { return .failure(missing("-r, --resume [sessionId]")) }
                options.resume = v
            case "--model":
                guard let v = value() else { return .failure(missing("--model <model>")) }
                options.model = v
            case "--permission-mode":
                guard let v = value() else { return .failure(missing("--permission-mode <mode>")) }
                guard acceptedPermissionModes.contains(v) else {
                    return .failure(
                        UsageError(
                            "error: option '--permission-mode <mode>' argument '\(v)' is invalid. Allowed choices are \(permissionModeChoices.joined(separator: ", "))."
                        )
                    )
                }
                options.permissionMode = v
            case "--allowedTools", "--allowed-tools":
                options.allowedTools += list()
            case "--disallowedTools", "--disallowed-tools":
                options.disallowedTools += list()
            default:
                if arg.hasPrefix("-") && arg != "-" { return .failure(UsageError("error: unknown option '\(arguments[i])'")) }
                guard options.prompt == nil else {
                    return .failure(UsageError("error: too many arguments"))
                }
                options.prompt = arg
            }
            i += 1
        }
        return .success(options)
    }

    /// The checks the real CLI makes before it starts, with its messages.
    func validate() -> UsageError? {
        guard print else { return UsageError("fake-claude: only print mode (-p/--print) is simulated") }
        if outputFormat == .streamJSON && !verbose {
            return UsageError("Error: When using --print, --output-format=stream-json requires --verbose")
        }
        if inputFormat == .streamJSON && outputFormat != .streamJSON {
            return UsageError("Error: --input-format=stream-json requires output-format=stream-json.")
        }
        if includePartialMessages && outputFormat != .streamJSON {
            return UsageError("Error: --include-partial-messages requires --print and --output-format=stream-json.")
        }
        if replayUserMessages && (inputFormat != .streamJSON || outputFormat != .streamJSON) {
            return UsageError("Error: --replay-user-messages requires both --input-format=stream-json and --output-format=stream-json.")
        }
        return nil
    }
}

/// A usage error: printed to stderr, exit code 1.
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

extension Options {
    /// The rules of a tool list, separated by commas or spaces outside parentheses: `"Read,Bash(git log:*)"` →
    /// `["Read", "Bash(git log:*)"]`.
    static func rules(in list: String) -> [String] {
        var rules: [String] = []
        var current = ""
        var depth = 0
        for character in list {
            switch character {
            case "(": depth += 1
            case ")": depth = max(0, depth - 1)
            case "," where depth == 0, " " where depth == 0:
                if !current.isEmpty { rules.append(current) }
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        if !current.isEmpty { rules.append(current) }
        return rules
    }
}
