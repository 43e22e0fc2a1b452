import Foundation
import RalphAPI
import Testing
import TestSupport

@testable import RalphMobileKit

/// `ralph-mobile notify …`, the built executable against the real server and the local receivers.
@Suite("The ralph-mobile terminal client: notify", .serialized)
struct TerminalNotifyTests {
    static let adminKey = "rmk_cli_notify_admin_0123456789"

    static func cli(_ arguments: [String], _ h: KitHarness, key: String? = adminKey) async throws -> Products.Output {
        let config = h.tmp.subdirectory("cli")
        return try await TerminalClientTests.cli(arguments + ["--server", h.server.base] + (key.map { ["--api-key", $0] } ?? []), config: config)
    }

    @Test("add-ntfy and add-webhook register (the generated secret printed once), status lists them, test delivers, log shows it, remove")
    func lifecycle() async throws {
        let h = try await KitHarness.start(apiKey: Self.adminKey)
        let receiver = try await LocalPushReceiver.start()
        defer { Task { await receiver.stop(); await h.stop() } }

        let ntfy = try await Self.cli(["notify", "add-ntfy", receiver.origin + "/ntfy/ralph-cli", "--kinds", "approval,question", "--private", "--name", "watch"], h)
        #expect(ntfy.status == 0, "\(ntfy.stderr)")
        let ntfyID = try #require(ntfy.stdout.firstMatch(of: /registered (dev-[0-9a-f-]+)/)?.output.1).description
        #expect(ntfy.stdout.contains("kinds: approval,question") && ntfy.stdout.contains("private"))

        let hookURL = receiver.origin + "/hook/1"
        let hook = try await Self.cli(["notify", "add-webhook", hookURL], h)
        #expect(hook.status == 0, "\(hook.stderr)")
        let secret = try #require(hook.stdout.firstMatch(of: /secret: ([0-9a-f]{64})/)?.output.1).description
        #expect(try await receiver.hook(secret: secret) == hookURL)
        let hookID = try #require(hook.stdout.firstMatch(of: /registered (dev-[0-9a-f-]+)/)?.output.1).description
        #expect(hook.stdout.contains("kinds: all"))

        let status = try await Self.cli(["notify", "status"], h)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("apns") && status.stdout.contains("unavailable"), "APNs without credentials says so:\n\(status.stdout)")
        #expect(status.stdout.contains(ntfyID) && status.stdout.contains(hookID) && status.stdout.contains("watch"))
        #expect(!status.stdout.contains(secret), "the secret is never listed")

        // A unique prefix is enough.
        let test = try await Self.cli(["notify", "test", String(hookID.prefix(12))], h)
        #expect(test.status == 0 && test.stdout.contains("delivered") && test.stdout.contains("HTTP 200"), "\(test.stdout)\(test.stderr)")
        #expect(try await receiver.messages(at: "/hook/1", count: 1).first?.title == "Ralph Mobile test", "signed with the printed secret")
        #expect(try await Self.cli(["notify", "test", ntfyID], h).status == 0)

        try await receiver.script("/hook/1", statuses: [500])
        let refused = try await Self.cli(["notify", "test", hookID], h)
        #expect(refused.status == 1 && refused.stderr.contains("test failed (HTTP 500)"), "\(refused.stderr)")

        let log = try await Self.cli(["notify", "log", "--limit", "10"], h)
        #expect(log.status == 0 && log.stdout.hasPrefix("AT") && log.stdout.contains(hookID) && log.stdout.contains("delivered") && log.stdout.contains("failed"))
        let json = try await Self.cli(["notify", "log", "--json", "--device", ntfyID], h)
        let entries = try WireJSON.decode([NotificationDelivery].self, from: Data(json.stdout.utf8))
        #expect(entries.count == 1 && entries.first?.channel == .ntfy && entries.first?.outcome == "delivered")

        let removed = try await Self.cli(["notify", "remove", ntfyID], h)
        #expect(removed.status == 0 && removed.stdout.contains("removed \(ntfyID)"))
        #expect(!(try await Self.cli(["notify", "status"], h).stdout.contains(ntfyID)))
    }

    @Test("clear refusals: an unknown kind, a viewer adding a webhook, an unknown device, the log without admin, a bad topic URL")
    func refusals() async throws {
        let h = try await KitHarness.start(apiKey: Self.adminKey)
        defer { Task { await h.stop() } }
        let viewer = try await h.client.createKey(role: .viewer, name: "cli-viewer").secret

        let typo = try await Self.cli(["notify", "add-ntfy", "https://ntfy.sh/x", "--kinds", "approvals"], h)
        #expect(typo.status != 0 && typo.stderr.contains("unknown kind 'approvals'") && typo.stderr.contains("approval, question"), "\(typo.stderr)")

        let forbidden = try await Self.cli(["notify", "add-webhook", "https://example.com/hook"], h, key: viewer)
        #expect(forbidden.status == 1 && forbidden.stderr.contains("not allowed"), "\(forbidden.stderr)")

        let unknown = try await Self.cli(["notify", "remove", "dev-nothing"], h)
        #expect(unknown.status == 1 && unknown.stderr.contains("no notification device 'dev-nothing'"), "\(unknown.stderr)")

        let log = try await Self.cli(["notify", "log"], h, key: viewer)
        #expect(log.status == 1 && log.stderr.contains("not allowed"), "\(log.stderr)")

        let badTopic = try await Self.cli(["notify", "add-ntfy", "ftp://ntfy.sh/x"], h)
        #expect(badTopic.status == 1 && badTopic.stderr.contains("ntfy.url must be an http(s) topic URL"), "\(badTopic.stderr)")

        let short = try await Self.cli(["notify", "add-webhook", "https://example.com/hook", "--secret", "short"], h)
        #expect(short.status == 1 && short.stderr.contains("webhook.secret must be 16 to 200 characters"), "\(short.stderr)")

        let empty = try await Self.cli(["notify", "status"], h, key: viewer)
        #expect(empty.status == 0 && empty.stdout.contains("none — add one"), "\(empty.stdout)")
    }
}
