import Foundation
import RalphAPI

/// Asks an agent CLI about itself — `<command> --version` and `<command> --help` — so clients see which version
/// conversations run and which permission modes it accepts (a mode it refuses would fail every start of it).
public enum AgentProbe {
    /// How long each question may take.
    public static let timeout: Duration = .seconds(20)

    /// What the CLI says about itself; `error` says why it could not be asked. `fallbackModes` are used when its help
    /// lists none.
    public static func probe(name: String, command: String, environment: [String: String], workingDirectory: String, fallbackModes: [String]) async
        -> AgentInfo
    {
        do {
            let version = try await output(of: command, ["--version"], environment: environment, workingDirectory: workingDirectory)
            let help = try await output(of: command, ["--help"], environment: environment, workingDirectory: workingDirectory)
            let modes = permissionModes(inHelp: help)
            return AgentInfo(
                name: name, command: command, version: Self.version(in: version), permissionModes: modes.isEmpty ? fallbackModes : modes,
                error: nil
            )
        } catch {
            return AgentInfo(name: name, command: command, version: nil, permissionModes: fallbackModes, error: error.description)
        }
    }

    /// The version in a CLI's `--version` output: the first word of its first line that starts with a digit
    /// (`2.1.330 (Claude Code)` → `2.1.330`, `codex-cli 0.147.0` → `0.147.0`), else that line's first word.
    public static func version(in output: String) -> String? {
        let line = output.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let words = line.split(separator: " ")
        return (words.first { $0.first?.isNumber == true } ?? words.first).map(String.init)
    }

    /// The choices of `--permission-mode` in a commander-style help text: `(choices: "acceptEdits", "auto", …)`, which
    /// may be wrapped over several lines.
    public static func permissionModes(inHelp help: String) -> [String] {
        guard let flag = help.range(of: "--permission-mode"), let open = help.range(of: "(choices:", range: flag.upperBound..<help.endIndex),
            let close = help.range(of: ")", range: open.upperBound..<help.endIndex)
        else { return [] }
        // The choices must belong to this flag, not to one listed after it.
        let between = help[flag.upperBound..<open.lowerBound]
        guard !between.contains("--") else { return [] }
        return help[open.upperBound..<close.lowerBound].split(separator: ",").compactMap { part in
            let trimmed = part.trimmingCharacters(in: .whitespacesAndNewlines)
            guard trimmed.count >= 2, trimmed.hasPrefix("\""), trimmed.hasSuffix("\"") else { return nil }
            return String(trimmed.dropFirst().dropLast())
        }
    }

    public enum ProbeError: Error, CustomStringConvertible {
        case cannotStart(String)
        case failed(arguments: [String], exit: ChildProcess.Exit, stderr: String)
        case timedOut(arguments: [String])

        public var description: String {
            switch self {
            case .cannotStart(let reason): reason
            case .failed(let arguments, let exit, let stderr):
                "\(arguments.joined(separator: " ")) ended with \(exit)" + (stderr.isEmpty ? "" : ": \(stderr.prefix(300))")
            case .timedOut(let arguments): "\(arguments.joined(separator: " ")) did not answer within \(AgentProbe.timeout)"
            }
        }
    }

    /// Everything `command arguments` prints on stdout, once it exited 0.
    static func output(of command: String, _ arguments: [String], environment: [String: String], workingDirectory: String) async throws(ProbeError)
        -> String
    {
        let process: AgentProcess
        do {
            process = try AgentProcess.start(executable: command, arguments: arguments, workingDirectory: workingDirectory, environment: environment)
        } catch {
            throw .cannotStart(error.description)
        }
        process.closeStdin()
        let collected: [UInt8]? = await withDeadline(timeout) {
            var bytes: [UInt8] = []
            for await line in process.lines { bytes += line + [0x0A] }
            return bytes
        }
        guard let collected else {
            await process.terminate(grace: .seconds(1))
            throw .timedOut(arguments: [command] + arguments)
        }
        let exit = await process.waitForExit()
        guard exit == .exited(0) else { throw .failed(arguments: [command] + arguments, exit: exit, stderr: process.stderrTail) }
        return String(decoding: collected, as: UTF8.self)
    }
}
