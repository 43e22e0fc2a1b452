import Foundation
import RalphAPI
import Testing

@Suite("?token= on the stream routes only")
struct StreamTokenTests {
    static let key = "admin-secret-for-token-tests"

    @Test("?token= opens the real streams, and is ignored on every other route, however its path ends")
    func tokenOnlyOnStreams() async throws {
        let (h, id) = try await StreamHarness.keyed(Self.key) { root in Fixture.write("# notes\n", to: root + "/prompts/events/notes.md") }
        defer { h.stop() }
        let base = h.server.base

        for stream in ["/api/events", "/api/sessions/\(id)/events"] {
            #expect(try await SSETestClient.connect(base + stream + "?token=\(Self.key)").status == 200, "\(stream)")
        }
        // Past authentication: the route itself answers (no such conversation, no run started here).
        #expect(try await HTTP.get(base + "/api/conversations/nope/events?token=\(Self.key)").status == 404)
        #expect(try await HTTP.get(base + "/api/sessions/\(id)/log?token=\(Self.key)").status == 404)

        for other in [
            "/api/sessions/\(id)/log?follow=false&token=\(Self.key)",
            "/api/prompts/events?token=\(Self.key)",
            "/api/prompts/events/notes.md?token=\(Self.key)",
            "/api/configs/presets/events?token=\(Self.key)",
            "/api/keys/events?token=\(Self.key)",
            "/api/sessions/\(id)/events/events?token=\(Self.key)",
            "/api/x/y/z/events?token=\(Self.key)",
            "/api/sessions?token=\(Self.key)",
        ] {
            let answer = try await HTTP.get(base + other)
            #expect(answer.status == 401, "\(other): \(answer.status) \(answer.text.prefix(120))")
        }
        let post = try await HTTP.request(base + "/api/sessions/\(id)/events?token=\(Self.key)", method: .POST, body: "{}")
        #expect(post.status == 401)
        // A page on another site could try tokens through an image tag: its requests are not taken.
        let crossSite = try await HTTP.get(base + "/api/events?token=\(Self.key)", headers: [("Sec-Fetch-Site", "cross-site")])
        #expect(crossSite.status == 401)
    }
}
