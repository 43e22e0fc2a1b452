import ArgumentParser
import Foundation
import RalphAPI
import RalphMobileKit

/// `ralph-mobile auto-reply …`: a conversation's auto-reply loop — settings, presets and controls.
struct AutoReplyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auto-reply",
        abstract: "A conversation's auto-reply loop: show, set, start, pause, resume, stop, presets, export, import.",
        discussion: """
            The loop answers the agent's replies with a next prompt until a limit or completion, on the server.

            Examples:
              ralph-mobile auto-reply set 241f --mode message_based --max-messages 5
              ralph-mobile auto-reply start 241f --preset overnight
              ralph-mobile auto-reply show 241f
              ralph-mobile auto-reply export 241f > loop.json
              ralph-mobile auto-reply import 9c2e loop.json
            """,
        subcommands: [Show.self, Set.self, Start.self, Pause.self, Resume.self, Stop.self, Presets.self, Export.self, Import.self],
        defaultSubcommand: Show.self
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the settings and where the loop is.")
        @OptionGroup var target: ConversationTarget
        @Flag(help: "Print the server's JSON.") var json = false

        @MainActor
        func run() async throws {
            try await withClient(target.server) { client in
                let status = try await client.autoReply(target.id)
                if json { return say(try SessionsCommand.prettyJSON(status)) }
                AutoReplyCommand.print(status, theme: target.server.theme)
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change the settings: the current ones, then --file, then --preset, then each flag. Checked before sending."
        )
        @OptionGroup var server: ServerOptions
        @Argument(help: "The conversation id.") var id: String
        @OptionGroup var settings: SettingsOptions

        @MainActor
        func run() async throws {
            try await withClient(server) { client in
                let status = try await settings.apply(to: client, id)
                AutoReplyCommand.print(status, theme: server.theme)
            }
        }
    }

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start the loop, with the saved settings or changed by the same flags as set.")
        @OptionGroup var server: ServerOptions
        @Argument(help: "The conversation id.") var id: String
        @OptionGroup var settings: SettingsOptions

        @MainActor
        func run() async throws {
            try await withClient(server) { client in
                var changed: AutoReplySettings?
                if settings.changesAnything {
                    let new = try await settings.settings(client, id)
                    if settings.asDefault { _ = try await client.setAutoReply(id, new, asDefault: true) } else { changed = new }
                }
                let status = try await client.startAutoReply(id, settings: changed)
                say(ChatFormat(theme: server.theme).autoReply(status.progress))
            }
        }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pause the loop (a running turn finishes; no next prompt is sent).")
        @OptionGroup var target: ConversationTarget
        @MainActor func run() async throws { try await AutoReplyCommand.control(target) { try await $0.pauseAutoReply(target.id) } }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Resume a paused loop (also the go for a prompt waiting for confirmation).")
        @OptionGroup var target: ConversationTarget
        @MainActor func run() async throws { try await AutoReplyCommand.control(target) { try await $0.resumeAutoReply(target.id) } }
    }

    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the loop.")
        @OptionGroup var target: ConversationTarget
        @MainActor func run() async throws { try await AutoReplyCommand.control(target) { try await $0.stopAutoReply(target.id) } }
    }

    struct Presets: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the server's presets (use with --preset).")
        @OptionGroup var server: ServerOptions
        @Flag(help: "Print the server's JSON.") var json = false

        @MainActor
        func run() async throws {
            let theme = server.theme
            try await withClient(server) { client in
                let presets = try await client.autoReplyPresets()
                if json { return say(try SessionsCommand.prettyJSON(presets)) }
                let width = presets.keys.map(\.count).max() ?? 0
                for name in presets.keys.sorted() {
                    say(theme.paint(name.padding(toLength: width, withPad: " ", startingAt: 0), Theme.gold, bold: true) + "  " + AutoReplyCommand.summary(presets[name]!))
                }
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the settings as JSON (for import, or `set --file`).")
        @OptionGroup var target: ConversationTarget

        @MainActor
        func run() async throws {
            try await target.perform { try SessionsCommand.prettyJSON(try await $0.autoReply(target.id).settings) }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set the settings from a JSON file (whole or partial), like `set --file`.")
        @OptionGroup var server: ServerOptions
        @Argument(help: "The conversation id.") var id: String
        @Argument(help: "The settings file (- for stdin).") var file: String
        @Flag(name: .customLong("default"), help: "Also the default of new conversations in the same directory.") var asDefault = false

        @MainActor
        func run() async throws {
            let options = try SettingsOptions.parse(["--file", file] + (asDefault ? ["--default"] : []))
            try await withClient(server) { client in
                AutoReplyCommand.print(try await options.apply(to: client, id), theme: server.theme)
            }
        }
    }

    @MainActor
    static func control(_ target: ConversationTarget, _ call: @escaping (RalphClient) async throws -> AutoReplyStatus) async throws {
        try await target.perform { ChatFormat(theme: target.server.theme).autoReply(try await call($0).progress).trimmingCharacters(in: .whitespaces) }
    }

    static func print(_ status: AutoReplyStatus, theme: Theme) {
        say(ChatFormat(theme: theme).autoReply(status.progress).trimmingCharacters(in: .whitespaces))
        if let prompt = status.progress.pendingPrompt { say(theme.dim("  waiting for your go (resume): ") + Text.cut(prompt, 200)) }
        say("  settings: " + summary(status.settings))
        let s = status.settings
        say("  next prompt (\(s.nextPrompt.strategy.rawValue)): " + theme.dim(Text.cut(s.fixedPrompt.replacingOccurrences(of: "\n", with: " ⏎ "), 200)))
        if let judge = s.judge { say("  judge: \(judge.model) at \(judge.baseUrl)" + (judge.apiKeyRef.map { " (key from $\($0))" } ?? "")) }
    }

    /// One line: mode, limits and switches.
    static func summary(_ s: AutoReplySettings) -> String {
        var parts = [s.enabled ? s.mode.rawValue : "\(s.mode.rawValue) (disabled)", "max \(s.maxIterations) cycles"]
        if let m = s.maxMessages { parts.append("\(m) messages") }
        if let m = s.maxMinutes { parts.append("\(m) min") }
        if s.mode == .smartStop || s.mode == .hybrid { parts.append(String(format: "confidence ≥ %.2f", s.minConfidence)) }
        var switches: [String] = []
        if s.stopOnError { switches.append("stop on error") }
        if s.requireConfirmation { switches.append("confirm each prompt") }
        if !s.allowOverride { switches.append("your messages pause it") }
        if !s.showstopperDetection { switches.append("no showstopper detection") }
        return (parts + switches).joined(separator: " · ")
    }
}

/// The settings flags of `set` and `start`.
struct SettingsOptions: ParsableArguments {
    @Option(help: ArgumentHelp("smart_stop, until_completion, time_based, message_based or hybrid.", valueName: "mode")) var mode: String?
    @Option(name: .customLong("max-iterations"), help: "Safety limit on cycles (1-500).") var maxIterations: Int?
    @Option(name: .customLong("max-minutes"), help: "time_based and hybrid (1-480).") var maxMinutes: Int?
    @Option(name: .customLong("max-messages"), help: "message_based and hybrid (1-100).") var maxMessages: Int?
    @Option(name: .customLong("min-confidence"), help: "smart_stop stops at or above it (0-1).") var minConfidence: Double?
    @Flag(name: .customLong("stop-on-error"), inversion: .prefixedNo, help: "Stop when a turn ends in an error.") var stopOnError: Bool?
    @Flag(name: .customLong("require-confirmation"), inversion: .prefixedNo, help: "Each next prompt waits for `resume`.") var requireConfirmation: Bool?
    @Flag(name: .customLong("allow-override"), inversion: .prefixedNo, help: "Your own message while it runs is sent and the loop goes on.")
    var allowOverride: Bool?
    @Option(help: "The next prompt (a fixed text).") var prompt: String?
    @Option(help: "Start from a preset's mode and limits (see `auto-reply presets`).") var preset: String?
    @Flag(name: .customLong("default"), help: "Also the default of new conversations in the same directory.") var asDefault = false
    @Option(help: ArgumentHelp("Start from a settings JSON file, whole or partial (- for stdin).", valueName: "settings.json")) var file: String?

    var changesAnything: Bool {
        mode != nil || maxIterations != nil || maxMinutes != nil || maxMessages != nil || minConfidence != nil || stopOnError != nil
            || requireConfirmation != nil || allowOverride != nil || prompt != nil || preset != nil || file != nil || asDefault
    }

    /// The current settings, then the file, the preset and the flags; every problem is reported before anything is sent.
    @MainActor
    func settings(_ client: RalphClient, _ id: String) async throws -> AutoReplySettings {
        var s = try await client.autoReply(id).settings
        if let file {
            let data: Data
            if file == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                guard let d = FileManager.default.contents(atPath: file) else { throw RalphMobileFailure(message: "cannot read \(file)") }
                data = d
            }
            do {
                s = try WireJSON.decode(AutoReplySettings.self, from: data)
            } catch {
                throw RalphMobileFailure(message: "\(file) is not auto-reply settings: \(Self.describe(error))")
            }
        }
        if let preset {
            let presets = try await client.autoReplyPresets()
            guard var p = presets[preset] else {
                throw RalphMobileFailure(message: "unknown preset '\(preset)'; presets: \(presets.keys.sorted().joined(separator: ", "))")
            }
            p.nextPrompt = s.nextPrompt
            p.judge = s.judge
            s = p
        }
        if let mode {
            guard let m = AutoReplyMode.aliases[mode] else {
                throw RalphMobileFailure(message: "unknown mode '\(mode)'; use one of \(AutoReplyMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            s.mode = m
        }
        if let maxIterations { s.maxIterations = maxIterations }
        if let maxMinutes { s.maxMinutes = maxMinutes }
        if let maxMessages { s.maxMessages = maxMessages }
        if let minConfidence { s.minConfidence = minConfidence }
        if let stopOnError { s.stopOnError = stopOnError }
        if let requireConfirmation { s.requireConfirmation = requireConfirmation }
        if let allowOverride { s.allowOverride = allowOverride }
        if let prompt { s.nextPrompt.text = prompt }
        let problems = s.problems
        guard problems.isEmpty else {
            throw RalphMobileFailure(message: "invalid auto-reply settings, nothing was changed:\n" + problems.map { "  - \($0)" }.joined(separator: "\n"))
        }
        return s
    }

    /// Sends the new settings.
    @MainActor
    func apply(to client: RalphClient, _ id: String) async throws -> AutoReplyStatus {
        try await client.setAutoReply(id, try await settings(client, id), asDefault: asDefault)
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .dataCorrupted(let c), .typeMismatch(_, let c), .valueNotFound(_, let c):
            let path = c.codingPath.map(\.stringValue).joined(separator: ".")
            return (path.isEmpty ? "" : "\(path): ") + c.debugDescription
        case .keyNotFound(let key, _): return "missing \(key.stringValue)"
        @unknown default: return "\(error)"
        }
    }
}
