import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

@Suite("loop.terminate parser")
struct LoopTerminateTests {
    static let referencePayload =
        "## Reason\ncompleted\n\n## Status\nAll tasks completed successfully.\n\n## Summary\n- Iterations: 12\n- Duration: 21m 0s\n- Exit code: 0"

    @Test("the payload ralph writes gives reason, message, iterations, duration and exit code")
    func referencePayload() {
        let stop = LoopTerminate.parse(Self.referencePayload, at: "2026-02-05T09:30:00.500Z")
        #expect(
            stop == StopReason(reason: "completed", message: "All tasks completed successfully.", iterations: 12, duration: "21m 0s", exitCode: 0, at: "2026-02-05T09:30:00.500Z")
        )
    }

    @Test("other reasons, durations and exit codes are read as written")
    func otherReasons() {
        let payload = "## Reason\nmax_iterations\n\n## Status\nMaximum iterations reached.\n\n## Summary\n- Iterations: 100\n- Duration: 1h 2m 3s\n- Exit code: 2"
        let stop = LoopTerminate.parse(payload, at: nil)
        #expect(stop.reason == "max_iterations")
        #expect(stop.message == "Maximum iterations reached.")
        #expect(stop.iterations == 100)
        #expect(stop.duration == "1h 2m 3s")
        #expect(stop.exitCode == 2)
        #expect(stop.at == nil)
        let interrupted = LoopTerminate.parse("## Reason\ninterrupted\n\n## Summary\n- Exit code: 130\n- Duration: 5s", at: nil)
        #expect(interrupted.reason == "interrupted")
        #expect(interrupted.exitCode == 130)
        #expect(interrupted.duration == "5s")
        #expect(interrupted.message == nil)
        #expect(interrupted.iterations == nil)
    }

    @Test("a status spread over several lines is joined with spaces and indentation is tolerated")
    func multiLineStatus() {
        let stop = LoopTerminate.parse("#Reason\n  stopped  \n\n### STATUS\n  Stopped by user.\nSee logs.\n", at: nil)
        #expect(stop.reason == "stopped")
        #expect(stop.message == "Stopped by user. See logs.")
    }

    @Test("an unknown layout gives its first non-empty line as the reason and nothing invented")
    func unknownLayout() {
        let stop = LoopTerminate.parse("\n  Loop stopped by the operator  \nsecond line\n", at: "x")
        #expect(stop == StopReason(reason: "Loop stopped by the operator", message: nil, iterations: nil, duration: nil, exitCode: nil, at: "x"))
    }

    @Test("a missing or empty payload gives the reason unknown", arguments: [nil, "", "\n\n", "   "] as [String?])
    func emptyPayload(_ payload: String?) {
        let stop = LoopTerminate.parse(payload, at: "2026-02-05T09:30:00.500Z")
        #expect(stop.reason == "unknown")
        #expect(stop.message == nil)
        #expect(stop.iterations == nil)
        #expect(stop.exitCode == nil)
        #expect(stop.at == "2026-02-05T09:30:00.500Z")
    }

    @Test("unparseable summary values are left nil")
    func badSummaryValues() {
        let stop = LoopTerminate.parse("## Reason\ncompleted\n## Summary\n- Iterations: many\n- Exit code: zero\n- Other: 1", at: nil)
        #expect(stop.reason == "completed")
        #expect(stop.iterations == nil)
        #expect(stop.exitCode == nil)
    }

    @Test("reasons map to session statuses", arguments: [
        ("completed", SessionStatus.completed),
        ("stopped", .stopped),
        ("interrupted", .stopped),
        ("restart_requested", .stopped),
        ("exited", .stopped),
        ("max_iterations", .failed),
        ("max_runtime", .failed),
        ("max_cost", .failed),
        ("consecutive_failures", .failed),
        ("loop_thrashing", .failed),
        ("validation_failure", .failed),
        ("unknown", .failed),
    ])
    func statusMapping(_ reason: String, _ status: SessionStatus) {
        #expect(LoopTerminate.status(forReason: reason) == status)
    }
}

@Suite("Backpressure evidence")
struct BackpressureEvidenceTests {
    private func summary(_ payload: String) -> [String] {
        BackpressureEvidence.checks(in: payload).map { "\($0.name)=\($0.result):\($0.passed)" }
    }

    @Test("plain lines give the checks in order")
    func plainLines() {
        #expect(summary("tests: pass\nlint: pass\ntypecheck: fail") == ["tests=pass:true", "lint=pass:true", "typecheck=fail:false"])
    }

    @Test("bullets and check marks before the name are ignored")
    func bullets() {
        #expect(summary("- tests: pass\n* lint: fail\n• typecheck: pass\n✅ audit: ok\n❌ coverage: 41%") == [
            "tests=pass:true", "lint=fail:false", "typecheck=pass:true", "audit=ok:true", "coverage=41%:false",
        ])
    }

    @Test("commas and semicolons separate checks on one line")
    func commas() {
        #expect(summary("tests: pass, lint: fail; typecheck: pass") == ["tests=pass:true", "lint=fail:false", "typecheck=pass:true"])
    }

    @Test("passed, PASS and trailing words count as a pass; names are case-insensitive")
    func passedWords() {
        #expect(summary("Tests: passed (42 tests)\nLINT: PASS\ntypecheck: green") == ["tests=passed:true", "lint=pass:true", "typecheck=green:true"])
    }

    @Test("unknown check names and lines without a value are ignored")
    func unknownNamesIgnored() {
        #expect(summary("foo: pass\nBuild complete.\ntests:\nnotes: tests pass\nlint: pass") == ["lint=pass:true"])
    }

    @Test("the last mention of a check wins but it keeps its first position")
    func lastMentionWins() {
        #expect(summary("tests: fail\nlint: pass\ntests: pass") == ["tests=pass:true", "lint=pass:true"])
    }

    @Test("ANSI colour codes are stripped")
    func ansi() {
        #expect(summary("\u{1B}[32mtests: pass\u{1B}[0m\n\u{1B}[1;31mlint: fail\u{1B}[0m") == ["tests=pass:true", "lint=fail:false"])
    }

    @Test("a payload without checks gives none")
    func none() {
        #expect(BackpressureEvidence.checks(in: "").isEmpty)
        #expect(BackpressureEvidence.checks(in: "All done, shipping it.").isEmpty)
    }
}

@Suite("Workspace config")
struct WorkspaceConfigTests {
    @Test("event_loop.max_iterations and RObot.timeout_seconds are read")
    func nested() {
        let yaml = """
            # Feature preset
            event_loop:
              prompt_file: PROMPT.md
              completion_promise: LOOP_COMPLETE
              max_iterations: 50
            cli:
              backend: claude
            RObot:
              enabled: true
              timeout_seconds: 300
            """
        #expect(WorkspaceConfig.parse(yaml: yaml, path: "/w/ralph.yml") == WorkspaceConfig(maxIterations: 50, robotTimeoutSeconds: 300, path: "/w/ralph.yml"))
    }

    @Test("the legacy top-level max_iterations is used when event_loop has none")
    func legacy() {
        #expect(WorkspaceConfig.parse(yaml: "agent: claude\nmax_iterations: 7\n", path: nil) == WorkspaceConfig(maxIterations: 7))
        #expect(WorkspaceConfig.parse(yaml: "event_loop:\n  prompt_file: P.md\nmax_iterations: 8\n", path: nil)?.maxIterations == 8)
    }

    @Test("event_loop.max_iterations wins over the legacy key")
    func nestedWins() {
        #expect(WorkspaceConfig.parse(yaml: "max_iterations: 7\nevent_loop:\n  max_iterations: 30\n", path: nil)?.maxIterations == 30)
    }

    @Test("a mapping without the keys gives an empty config")
    func emptyMapping() {
        #expect(WorkspaceConfig.parse(yaml: "cli:\n  backend: claude\n", path: "p") == WorkspaceConfig(path: "p"))
        #expect(WorkspaceConfig.parse(yaml: "event_loop:\n  max_iterations: lots\n", path: nil) == WorkspaceConfig())
    }

    @Test("YAML that is not a mapping gives nil", arguments: ["- a\n- b\n", "just a string", "42", ""])
    func notAMapping(_ yaml: String) {
        #expect(WorkspaceConfig.parse(yaml: yaml, path: nil) == nil)
    }

    @Test("broken YAML gives nil", arguments: ["event_loop: [unclosed\n", "a: b: c\n", "key: \"unterminated\n", "\tevent_loop:\n\t\tmax_iterations: 3\n"])
    func broken(_ yaml: String) {
        #expect(WorkspaceConfig.parse(yaml: yaml, path: nil) == nil)
    }

    @Test("file(in:) finds ralph.yml, then ralph.yaml, else nil")
    func fileLookup() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ralph-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(WorkspaceConfig.file(in: dir) == nil)
        try "max_iterations: 3\n".write(toFile: dir + "/ralph.yaml", atomically: true, encoding: .utf8)
        #expect(WorkspaceConfig.file(in: dir) == dir + "/ralph.yaml")
        try "max_iterations: 4\n".write(toFile: dir + "/ralph.yml", atomically: true, encoding: .utf8)
        #expect(WorkspaceConfig.file(in: dir) == dir + "/ralph.yml")
    }
}

@Suite("Run file names")
struct RunFileNameTests {
    @Test("the start time is read from events-YYYYMMDD-HHMMSS.jsonl as UTC")
    func dateFromFileName() {
        #expect(RunSnapshot.dateFromFileName("events-20260205-083922.jsonl") == Date(timeIntervalSince1970: 1_770_280_762))
        #expect(RunSnapshot.dateFromFileName("events-20240229-000000.jsonl") == Date(timeIntervalSince1970: 1_709_164_800))
    }

    @Test("other names give nil", arguments: [
        "events.jsonl",
        "events-20260205-083922.json",
        "events-20260205-083922.jsonl.bak",
        "events-20260205083922.jsonl",
        "events-20260205_083922.jsonl",
        "events-2026020-083922.jsonl",
        "events-202602055-083922.jsonl",
        "events-2026a205-083922.jsonl",
        "events-20261305-083922.jsonl",
        "events-20260205-253922.jsonl",
        "Events-20260205-083922.jsonl",
        "x-events-20260205-083922.jsonl",
        "events--20260205-08392.jsonl",
        "events-2026020½-083922.jsonl",
        "",
    ])
    func otherNames(_ name: String) {
        #expect(RunSnapshot.dateFromFileName(name) == nil)
    }
}
