import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

/// The original iOS app's "New Ralph" wizard (reference §8.1): it sends the config's *name* from `GET /api/configs`
/// and the working directory as typed (`~/code/proj`), POSTs `/api/sessions`, then GETs the new run's `/status` at
/// once — against the real server with fake-ralph.
@Suite("Original iOS app: its New Ralph wizard", .serialized)
struct OriginalAppWizardTests {
    /// The app's createSession: the POST, then the status it reads straight after (decoded as it decodes it).
    static func createSession(_ h: SteeringHarness, config: String, directory: String) async throws -> (status: Int, text: String, session: [String: Any]?) {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["config_path": config, "prompt": "Do it", "working_dir": directory]), as: UTF8.self)
        let created = try await h.post("/api/sessions", body)
        guard created.status == 201, let id = (try JSONSerialization.jsonObject(with: created.body) as? [String: Any])?["id"] as? String else {
            return (created.status, created.text, nil)
        }
        let status = try await HTTP.get(h.server.base + "/api/sessions/\(id)/status")
        return (created.status, created.text, try JSONSerialization.jsonObject(with: status.body) as? [String: Any])
    }

    @Test("a bare config or preset name that matches exactly one listed config starts the run with that file")
    func bareNames() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 2\npace: 0.05")
        Fixture.write("# A feature preset\nfake_ralph:\n  iterations: 2\n  pace: 0.05\n", to: h.root + "/proj/presets/feature.yml")
        let names = try await HTTP.get(h.server.base + "/api/configs?workspace=proj").text
        #expect(names.contains(#""name":"feature""#) && names.contains(#""name":"ralph""#), "\(names)")

        for name in ["ralph", "feature"] {
            let created = try await Self.createSession(h, config: name, directory: "proj")
            #expect(created.status == 201, "\(name): \(created.text)")
            #expect(created.session?["iteration"] is Int, "the app's Session needs iteration: \(String(describing: created.session))")
            let id = try #require(created.session?["id"] as? String)
            try await eventually(10, "\(name)'s run to end") { try await h.status(id).mode == .complete }
        }
        #expect(try await HTTP.get(h.server.base + "/api/sessions").json([Session].self).count == 2)
    }

    @Test("a name matching nothing is 404 config_not_found listing what exists; one matching two is 400 naming both")
    func unknownAndAmbiguousNames() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 2")
        let missing = try await Self.createSession(h, config: "nope", directory: "proj")
        #expect(missing.status == 404 && missing.text.contains("config_not_found: nope") && missing.text.contains("listed: ralph"), "\(missing.text)")
        Fixture.write("fake_ralph:\n  iterations: 2\n", to: h.root + "/proj/presets/ralph.yml")
        let ambiguous = try await Self.createSession(h, config: "ralph", directory: "proj")
        #expect(ambiguous.status == 400 && ambiguous.text.contains("invalid_path") && ambiguous.text.contains("(presets/ralph.yml, ralph.yml)"), "\(ambiguous.text)")
        #expect(try await HTTP.get(h.server.base + "/api/sessions").text == "[]", "nothing was started")
    }

    @Test("~ in the working directory is the server user's home, still confined to the roots; ~user is refused")
    func homeDirectory() async throws {
        let home = try #require(ProcessInfo.processInfo.environment["HOME"])
        let inHome = home + "/.ralph-mobile-test-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: inHome + "/proj", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: inHome) }
        let h = try await SteeringHarness.start { $0.workspaces.append(inHome) }
        defer { h.stop() }
        Fixture.write("fake_ralph:\n  iterations: 1\n  pace: 0.05\n", to: inHome + "/proj/ralph.yml")
        let name = (inHome as NSString).lastPathComponent

        let created = try await Self.createSession(h, config: "ralph", directory: "~/\(name)/proj")
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(created.session?["id"] as? String)
        try await eventually(10, "the run to end") { try await h.status(id).mode == .complete }
        #expect(FileManager.default.fileExists(atPath: inHome + "/proj/.ralph/current-events"), "the run ran in the expanded directory")

        let outside = try await Self.createSession(h, config: "ralph", directory: "~")
        #expect(outside.status == 400 && outside.text.contains("invalid_path: working_dir"), "the home itself is outside the roots: \(outside.text)")
        let other = try await Self.createSession(h, config: "ralph", directory: "~root/proj")
        #expect(other.status == 400 && other.text.contains("not ~user"), "\(other.text)")
    }

    @Test("~ expansion: ~ and ~/x only, from HOME")
    func expansion() throws {
        #expect(try StartRequestValidator.expandingHome("~/code/p", field: "f", home: "/home/me") == "/home/me/code/p")
        #expect(try StartRequestValidator.expandingHome("~", field: "f", home: "/home/me") == "/home/me")
        #expect(try StartRequestValidator.expandingHome("code/~p", field: "f", home: "/home/me") == "code/~p")
        #expect(throws: APIError.self) { try StartRequestValidator.expandingHome("~x", field: "f", home: "/home/me") }
        #expect(throws: APIError.self) { try StartRequestValidator.expandingHome("~/x", field: "f", home: nil) }
    }
}
