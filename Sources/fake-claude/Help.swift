import Foundation

/// `--help` and `--version`, printed the way the real CLI (commander.js) prints them.
enum Help {
    /// The options the double understands, with their help text.
    static let options: [(flags: String, description: String)] = [
        ("--allowedTools, --allowed-tools <tools...>", #"Comma or space-separated list of tool names to allow (e.g. "Bash(git *) Edit")"#),
        ("--dangerously-skip-permissions", "Bypass all permission checks."),
        ("--disallowedTools, --disallowed-tools <tools...>", #"Comma or space-separated list of tool names to deny (e.g. "Bash(git *) Edit")"#),
        ("-h, --help", "Display help for command"),
        ("--include-partial-messages", "Include partial message chunks as they arrive (only works with --print and --output-format=stream-json)"),
        ("--input-format <format>", #"Input format (only works with --print): "text" (default), or "stream-json" (realtime streaming input) (choices: "text", "stream-json")"#),
        ("--model <model>", "Model for the current session."),
        (
            "--output-format <format>",
            #"Output format (only works with --print): "text" (default), "json" (single result), or "stream-json" (realtime streaming) (choices: "text", "json", "stream-json")"#
        ),
        ("--permission-mode <mode>", "Permission mode to use for the session " + choices(Options.permissionModeChoices)),
        ("--permission-prompt-tool <tool>", #"MCP tool to handle permission prompts (only works with --print); "stdio" asks the host over the control protocol"#),
        ("-p, --print", "Print response and exit (useful for pipes)."),
        (
            "--replay-user-messages",
            "Re-emit user messages from stdin back on stdout for acknowledgment (only works with --input-format=stream-json and --output-format=stream-json)"
        ),
        ("-r, --resume [value]", "Resume a conversation by session ID"),
        ("--verbose", "Override the verbose setting"),
        ("-v, --version", "Output the version number"),
    ]

    /// `(choices: "a", "b")`, commander's form.
    static func choices(_ values: [String]) -> String {
        "(choices: " + values.map { "\"\($0)\"" }.joined(separator: ", ") + ")"
    }

    /// The whole `--help` text: flags in a 40-column gutter, descriptions wrapped at 80 columns; flags too long for
    /// the gutter get their description on the next lines, indented by 6.
    static var text: String {
        var lines = [
            "Usage: claude [options] [prompt]", "", "fake-claude \(FakeClaude.version): a test double of Claude Code (print mode only)", "",
            "Arguments:", "  prompt" + String(repeating: " ", count: 32) + "Your prompt", "", "Options:",
        ]
        for option in options {
            let head = "  " + option.flags
            if head.count + 2 <= 40 {
                let body = wrap(option.description, width: 40)
                lines.append(head.padding(toLength: 40, withPad: " ", startingAt: 0) + body[0])
                lines += body.dropFirst().map { String(repeating: " ", count: 40) + $0 }
            } else {
                lines.append(head)
                lines += wrap(option.description, width: 74).map { String(repeating: " ", count: 6) + $0 }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Greedy word wrap to lines of at most `width` characters (a longer word gets a line of its own).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        lines.append(line)
        return lines
    }
}
