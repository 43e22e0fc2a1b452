import Foundation
import RalphAPI
import RalphFiles
import Testing

@testable import RalphMobileServer

@Suite("Steering refuses bad input, with clear errors and no side effect")
struct SteeringInputTests {
    @Test("start: unknown config or prompt, paths outside the roots, bad bodies")
    func startErrors() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 1")
        Fixture.write("prompt", to: h.root + "/proj/PROMPT.md")
        let outside = TemporaryDirectory("outside")
        Fixture.write("fake_ralph: {}\n", to: outside.path + "/evil.yml")
        try FileManager.default.createSymbolicLink(atPath: h.root + "/proj/link.yml", withDestinationPath: outside.path + "/evil.yml")
        try FileManager.default.createSymbolicLink(atPath: h.root + "/escape", withDestinationPath: outside.path)

        let cases: [(String, Int, String)] = [
            (#"{"config_path":"nope.yml","prompt":"x","working_dir":"proj"}"#, 404, "config_not_found: nope.yml"),
            (#"{"config_path":"ralph.yml","prompt_path":"missing.md","working_dir":"proj"}"#, 404, "prompt_not_found: missing.md"),
            (#"{"config_path":"../../outside/evil.yml","prompt":"x","working_dir":"proj"}"#, 400, "invalid_path: "),
            (#"{"config_path":"\#(outside.path)/evil.yml","prompt":"x","working_dir":"proj"}"#, 400, "invalid_path: "),
            (#"{"config_path":"link.yml","prompt":"x","working_dir":"proj"}"#, 400, "invalid_path: "),
            (#"{"config_path":"ralph.yml","prompt_path":"/etc/passwd","working_dir":"proj"}"#, 400, "invalid_path: "),
            (#"{"config_path":"ralph.yml","prompt":"x","working_dir":".."}"#, 400, "invalid_path: working_dir"),
            (#"{"config_path":"ralph.yml","prompt":"x","working_dir":"escape"}"#, 400, "invalid_path: working_dir"),
            (#"{"config_path":"ralph.yml","prompt":"x","working_dir":"/tmp"}"#, 400, "invalid_path: working_dir"),
            (#"{"config_path":"ralph.yml","prompt":"x","working_dir":"nope"}"#, 400, "invalid_path: working_dir"),
            (#"{"config_path":"PROMPT.md","prompt":"x","working_dir":"proj"}"#, 400, "invalid_path: config"),
            (#"{"config_path":"ralph.yml","working_dir":"proj"}"#, 400, "invalid_body: missing field 'prompt_path'"),
            (#"{"config_path":"ralph.yml","prompt":"x","prompt_path":"PROMPT.md","working_dir":"proj"}"#, 400, "invalid_body: give prompt_path or prompt"),
            (#"{"config_path":"ralph.yml","prompt":"   ","working_dir":"proj"}"#, 400, "invalid_body: prompt cannot be empty"),
            (#"{"config_path":"ralph.yml","prompt":"x","working_dir":"proj","max_iterations":0}"#, 400, "invalid_body: max_iterations"),
            (#"{"config_path":"ralph.yml","prompt":"x","working_dir":"proj","backend":"claude; rm -rf /"}"#, 400, "invalid_body: backend"),
            (#"{"prompt":"x"}"#, 400, "invalid_body: missing field 'config_path'"),
            ("not json", 400, "invalid_body: "),
        ]
        for (body, status, prefix) in cases {
            let result = try await h.post("/api/sessions", body)
            #expect(result.status == status, "\(body) → \(result.status) \(result.text)")
            #expect(result.text.hasPrefix(#"{"error":"\#(prefix)"#), "\(body) → \(result.text)")
        }
        // Nothing was started: no log, no run.
        #expect((try FileManager.default.contentsOfDirectory(atPath: h.data + "/runs")).isEmpty)
        #expect(try await HTTP.get(h.server.base + "/api/sessions").json([Session].self).isEmpty)
    }

    @Test("start: ralph missing or failing before it starts a run is failed_to_spawn with its reason")
    func spawnFailures() async throws {
        let h = try await SteeringHarness.start { $0.ralphCommand = "ralph-that-is-not-installed" }
        defer { h.stop() }
        h.config("iterations: 1")
        let missing = try await h.post("/api/sessions", #"{"config_path":"ralph.yml","prompt":"x","working_dir":"proj"}"#)
        #expect(missing.status == 500)
        #expect(missing.text.contains("failed_to_spawn: ralph-that-is-not-installed not found on PATH"))

        let failing = try await SteeringHarness.start()
        defer { failing.stop() }
        failing.config("fail_with: 2")
        let result = try await failing.post("/api/sessions", #"{"config_path":"ralph.yml","prompt":"x","working_dir":"proj"}"#)
        #expect(result.status == 500)
        #expect(result.text.contains("failed_to_spawn: ") && result.text.contains("exit code 2") && result.text.contains("preflight failed"))
    }

    @Test("emit and steer: bad topics, empty messages, unknown sessions, runs that are over")
    func writeErrors() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.1")
        let started = try await h.startRun()
        let before = try await h.status(started.id).eventCount
        for topic in ["", "has space", "slash/topic", "emoji😀", String(repeating: "a", count: 129)] {
            let result = try await h.post("/api/sessions/\(started.id)/emit", #"{"topic":"\#(topic)"}"#)
            #expect(result.status == 400 && result.text.hasPrefix(#"{"error":"invalid_topic: "#), "topic '\(topic.prefix(10))'")
        }
        #expect(try await h.post("/api/sessions/\(started.id)/emit", #"{"topic":"ok-topic_1.x"}"#).status == 200)
        for message in ["", "  \\n\\t "] {
            let result = try await h.post("/api/sessions/\(started.id)/steer", #"{"message":"\#(message)"}"#)
            #expect(result.status == 400 && result.text.contains("message cannot be empty"))
        }
        #expect(try await h.post("/api/sessions/\(started.id)/steer", #"{"text":"wrong field"}"#).status == 400)
        #expect(try await h.post("/api/sessions/ffffffffffffffff/emit", #"{"topic":"x"}"#).status == 404)
        #expect(try await h.post("/api/robot/response", #"{"question_id":"nonsense","response_text":"x"}"#).status == 404)
        #expect(try await h.post("/api/robot/response", #"{"question_id":"\#(started.id)-1","response_text":"x"}"#).status == 404)
        let detail = try await HTTP.get(h.server.base + "/api/sessions/\(started.id)").json(SessionDetail.self)
        let humanLines = detail.recentEvents.filter { ($0.objectValue?["topic"]?.stringValue ?? "").hasPrefix("human.") }
        #expect(humanLines.isEmpty, "nothing was written")
        #expect(detail.session.eventCount >= before)
    }

    @Test("roles: viewers only read; operators steer but cannot start or stop; admins do everything")
    func roles() async throws {
        let h = try await SteeringHarness.start { $0.apiKey = "admin-key-for-steering-tests" }
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.1")
        let admin = "admin-key-for-steering-tests"
        func key(_ role: String) async throws -> String {
            try await HTTP.request(h.server.base + "/api/keys", method: .POST, headers: [("X-Api-Key", admin)], body: #"{"role":"\#(role)"}"#).json(CreatedAPIKey.self).secret
        }
        let viewer = try await key("viewer")
        let op = try await key("operator")
        let body = #"{"config_path":"ralph.yml","prompt":"x","working_dir":"proj"}"#
        #expect(try await h.post("/api/sessions", body, key: viewer).text == #"{"error":"forbidden: needs admin"}"#)
        #expect(try await h.post("/api/sessions", body, key: op).status == 403)
        let started = try await h.post("/api/sessions", body, key: admin).json(StartSessionResponse.self)
        #expect(try await h.post("/api/sessions/\(started.id)/pause", "", key: viewer).text == #"{"error":"forbidden: needs operator"}"#)
        #expect(try await h.post("/api/sessions/\(started.id)/steer", #"{"message":"m"}"#, key: viewer).status == 403)
        #expect(try await h.post("/api/sessions/\(started.id)/emit", #"{"topic":"t"}"#, key: viewer).status == 403)
        #expect(try await h.post("/api/robot/guidance", #"{"guidance_text":"g"}"#, key: viewer).status == 403)
        #expect(try await h.post("/api/sessions/\(started.id)/pause", "", key: op).status == 200)
        #expect(try await h.post("/api/sessions/\(started.id)/resume", "", key: op).status == 200)
        #expect(try await h.post("/api/sessions/\(started.id)/steer", #"{"message":"m"}"#, key: op).status == 200)
        #expect(try await HTTP.request(h.server.base + "/api/sessions/\(started.id)", method: .DELETE, headers: [("X-Api-Key", op)]).status == 403)
        #expect(try await HTTP.request(h.server.base + "/api/sessions/\(started.id)", method: .DELETE, headers: [("X-Api-Key", admin)]).status == 200)
    }
}
