import ArgumentParser
import Foundation
import RalphAPI
import RalphMobileKit

/// `ralph-mobile notify …`: notification channels and devices — what the server can deliver, this key's devices,
/// registering an ntfy topic or a webhook, a test, removal, and the delivery log (admin).
struct NotifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Notifications: status, add-ntfy, add-webhook, remove, test, log.",
        discussion: """
            Registering an ntfy topic or a webhook needs an operator key (the server will call that URL). Kinds: \
            \(NotificationKind.allCases.map(\.rawValue).joined(separator: ", ")).

            Examples:
              ralph-mobile notify add-ntfy https://ntfy.sh/my-ralph --kinds approval,question
              ralph-mobile notify add-webhook https://ci.example.com/hooks/ralph
              ralph-mobile notify test dev-3f2a
              ralph-mobile notify log --limit 20
            """,
        subcommands: [Status.self, AddNtfy.self, AddWebhook.self, Remove.self, Test.self, Log.self],
        defaultSubcommand: Status.self
    )

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "What each channel can do, and this key's devices.")
        @OptionGroup var server: ServerOptions
        @Flag(help: "Every key's devices (admins).") var all = false
        @Flag(help: "Print the server's JSON.") var json = false

        @MainActor
        func run() async throws {
            let theme = server.theme
            try await withClient(server) { client in
                let settings = try await client.notificationSettings()
                var devices = try await client.notificationDevices()
                if !all {
                    let me = try await client.whoAmI()
                    devices = devices.filter { $0.keyId == me.keyID }
                }
                if json {
                    struct Both: Encodable {
                        var settings: NotificationSettings
                        var devices: [NotificationDevice]
                    }
                    return say(try SessionsCommand.prettyJSON(Both(settings: settings, devices: devices)))
                }
                say(theme.accent("CHANNELS"))
                let width = settings.channels.map(\.channel.rawValue.count).max() ?? 0
                for state in settings.channels {
                    let name = state.channel.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)
                    let word = state.available ? theme.good("ready") : theme.bad("unavailable")
                    say("  \(name)  \(word)\(state.reason.map { theme.dim(" — " + $0) } ?? "")")
                }
                say(theme.dim("  runs silent for \(settings.silenceSeconds) s are reported; bursts within \(settings.coalesceSeconds) s are folded"))
                say("")
                say(theme.accent(all ? "DEVICES (every key)" : "DEVICES (this key)"))
                guard !devices.isEmpty else {
                    return say(theme.dim("  none — add one with `ralph-mobile notify add-ntfy <topic-url>` or `notify add-webhook <url>`"))
                }
                for line in NotifyCommand.table(devices) { say("  " + line) }
            }
        }
    }

    struct AddNtfy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add-ntfy", abstract: "Register an ntfy topic (https://ntfy.sh/<topic> or your own server).")
        @OptionGroup var server: ServerOptions
        @Argument(help: "The topic's URL.") var topicURL: String
        @Option(help: "An access token for a protected topic.") var token: String?
        @OptionGroup var device: DeviceOptions

        @MainActor
        func run() async throws {
            let kinds = try device.parsedKinds()
            let name = device.name ?? "ntfy " + (topicURL.split(separator: "/").last.map(String.init) ?? topicURL)
            try await withClient(server) { client in
                let registered = try await client.registerDevice(
                    RegisterDeviceRequest(name: name, channel: .ntfy, kinds: kinds, privacy: device.privacy, ntfy: NtfyTopic(url: topicURL, token: token)))
                say("registered \(registered.id)  ntfy  \(registered.target)  kinds: \(NotifyCommand.kinds(registered.kinds))  \(registered.privacy.rawValue)")
            }
        }
    }

    struct AddWebhook: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-webhook",
            abstract: "Register a webhook: each notification is POSTed as JSON, signed with HMAC-SHA256 (X-Ralph-Mobile-Signature).")
        @OptionGroup var server: ServerOptions
        @Argument(help: "The URL to POST to.") var url: String
        @Option(help: "The HMAC secret (16 to 200 characters); the server generates one when absent and it is printed once.") var secret: String?
        @OptionGroup var device: DeviceOptions

        @MainActor
        func run() async throws {
            let kinds = try device.parsedKinds()
            let name = device.name ?? "webhook " + (URL(string: url)?.host ?? url)
            try await withClient(server) { client in
                let registered = try await client.registerDevice(
                    RegisterDeviceRequest(name: name, channel: .webhook, kinds: kinds, privacy: device.privacy, webhook: WebhookTarget(url: url, secret: secret)))
                say("registered \(registered.id)  webhook  \(registered.target)  kinds: \(NotifyCommand.kinds(registered.kinds))  \(registered.privacy.rawValue)")
                if let generated = registered.webhookSecret {
                    say("secret: \(generated)")
                    say(server.theme.dim("(shown once: verify X-Ralph-Mobile-Signature = sha256=HMAC-SHA256(secret, \"<X-Ralph-Mobile-Timestamp>.<body>\") with it)"))
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a device (it is told nothing more).")
        @OptionGroup var server: ServerOptions
        @Argument(help: "The device id (a unique prefix is enough).") var id: String

        @MainActor
        func run() async throws {
            try await withClient(server) { client in
                let device = try await NotifyCommand.resolve(id, client)
                let removed = try await client.removeDevice(device)
                say("removed \(removed.id)  \(removed.channel.rawValue)  \(removed.name)")
            }
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a test notification now and say what the receiver answered (exit 1 unless delivered).")
        @OptionGroup var server: ServerOptions
        @Argument(help: "The device id (a unique prefix is enough).") var id: String

        @MainActor
        func run() async throws {
            let theme = server.theme
            try await withClient(server) { client in
                let device = try await NotifyCommand.resolve(id, client)
                let delivery = try await client.testDevice(device)
                let status = delivery.status.map { " (HTTP \($0))" } ?? ""
                switch delivery.outcome {
                case "delivered":
                    say(theme.good("delivered") + status + "  message \(delivery.messageId)")
                default:
                    Output.write("error: test \(delivery.outcome)\(status): \(delivery.detail ?? "no detail")\n", to: STDERR_FILENO)
                    throw ExitCode.failure
                }
            }
        }
    }

    struct Log: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The delivery log, newest first (admin).")
        @OptionGroup var server: ServerOptions
        @Option(help: "How many entries (1 to 1000).") var limit = 50
        @Option(help: "Only this device's deliveries.") var device: String?
        @Flag(help: "Print the server's JSON.") var json = false

        @MainActor
        func run() async throws {
            guard (1...1000).contains(limit) else {
                Output.write("error: --limit must be 1 to 1000\n", to: STDERR_FILENO)
                throw ExitCode.failure
            }
            try await withClient(server) { client in
                let entries = try await client.notificationDeliveries(limit: limit, deviceID: device)
                if json { return say(try SessionsCommand.prettyJSON(entries)) }
                guard !entries.isEmpty else { return say(server.theme.dim("no deliveries yet")) }
                let rows = entries.map { entry in
                    [entry.at, entry.deviceId, entry.channel.rawValue, entry.kind.rawValue, String(entry.attempt), entry.outcome,
                     entry.status.map(String.init) ?? "—", entry.detail ?? ""]
                }
                for line in NotifyCommand.columns(["AT", "DEVICE", "CHANNEL", "KIND", "TRY", "OUTCOME", "HTTP", "DETAIL"], rows) { say(line) }
            }
        }
    }

    // MARK: - Helpers

    static func kinds(_ kinds: [NotificationKind]) -> String {
        Set(kinds) == Set(NotificationKind.allCases) ? "all" : kinds.map(\.rawValue).joined(separator: ",")
    }

    static func table(_ devices: [NotificationDevice]) -> [String] {
        let rows = devices.map { device in
            [device.id, device.channel.rawValue, device.name, kinds(device.kinds), device.privacy.rawValue,
             device.quietHours.map { "\($0.start)-\($0.end)" } ?? "—", device.target, device.lastError.map { "error: " + $0 } ?? (device.lastDeliveredAt ?? "—")]
        }
        return columns(["ID", "CHANNEL", "NAME", "KINDS", "PRIVACY", "QUIET", "TARGET", "LAST"], rows)
    }

    /// Left-aligned columns, the last one not padded.
    static func columns(_ header: [String], _ rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, text in
                column == row.count - 1 ? text : text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }

    /// The id of the device `text` names (an id or a unique prefix of one of the devices this key sees).
    @MainActor
    static func resolve(_ text: String, _ client: RalphClient) async throws -> String {
        let devices = try await client.notificationDevices()
        if devices.contains(where: { $0.id == text }) { return text }
        let matches = devices.filter { $0.id.hasPrefix(text) }
        switch matches.count {
        case 1: return matches[0].id
        case 0: throw ValidationError("no notification device '\(text)' among this key's devices (see `ralph-mobile notify status`)")
        default: throw ValidationError("'\(text)' matches \(matches.count) devices: \(matches.map(\.id).joined(separator: ", "))")
        }
    }
}

/// What an ntfy topic or webhook is told.
struct DeviceOptions: ParsableArguments {
    @Option(help: "What to call it (default: from the URL).") var name: String?
    @Option(help: "The kinds it is told about, comma-separated (default: all).") var kinds: String?
    @Flag(name: .customLong("private"), help: "Content-free text (\"An approval is waiting\"): no names, commands or questions.") var isPrivate = false

    var privacy: NotificationPrivacy { isPrivate ? .private : .full }

    /// The kinds, checked here so a typo is named before anything is sent.
    func parsedKinds() throws -> [NotificationKind]? {
        guard let kinds else { return nil }
        var result: [NotificationKind] = []
        for word in kinds.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !word.isEmpty {
            guard let kind = NotificationKind(rawValue: word) else {
                throw ValidationError("unknown kind '\(word)': use \(NotificationKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if !result.contains(kind) { result.append(kind) }
        }
        guard !result.isEmpty else { throw ValidationError("--kinds needs at least one kind") }
        return result
    }
}
