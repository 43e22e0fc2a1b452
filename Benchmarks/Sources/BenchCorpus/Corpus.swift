import Foundation

/// Real ralph event lines (the shapes in Tests/RalphFilesTests/EventCodecTests.swift and written by
/// RalphSimulator's RalphRunWriter/DemoLoop): orchestrator records, `ralph emit` lines, an object payload,
/// a token report and a multi-line `loop.terminate` record.
public enum Corpus {
    /// One iteration's worth of lines (`@I@` stands for the iteration number; see ``iteration(_:)``), in the order ralph writes them.
    public static let lines: [String] = [
        #"{"ts":"2026-02-05T08:09:13.890130179+00:00","iteration":0,"hat":"loop","topic":"analysis.start","triggered":"planner","payload":"Review and improve all existing BDD specs across two projects:\n\n1. bdd-preset.feature\n2. hats-init.feature"}"#,
        #"{"payload":"Analyzed all 4 BDD specs. Key findings: (1) bdd-preset.feature - no BDD preset scenario covers the failure path; (2) hats-init exit code is wrong","topic":"analysis.done","ts":"2026-02-05T08:11:47.583798402+00:00"}"#,
        #"{"ts":"2026-02-05T08:11:48.000120000+00:00","iteration":@I@,"hat":"planner","topic":"plan.ready","triggered":"builder","payload":"Plan: rewrite the four specs, then review them against the code."}"#,
        #"{"payload":"Rewrote all 4 BDD specs. bdd-preset: 14 scenarios (was 4), hats-init: 9 scenarios (was 3)","topic":"spec.draft_ready","ts":"2026-02-05T08:15:04.261208118+00:00"}"#,
        #"{"ts":"2026-02-05T08:15:05.100000000+00:00","iteration":@I@,"hat":"builder","topic":"build.done","triggered":"reviewer","payload":"tests: pass, lint: pass, typecheck: pass, audit: pass, coverage: 87%"}"#,
        #"{"payload":{"status":"success","files":["Sources/App/main.swift","Tests/AppTests/AppTests.swift"],"duration_ms":1840},"topic":"build.done","ts":"2026-02-05T09:00:00+00:00"}"#,
        #"{"payload":"{\"usage\":{\"input_tokens\":12840,\"output_tokens\":2210,\"cache_read_input_tokens\":98000,\"cache_creation_input_tokens\":4100},\"total_cost_usd\":0.4213}","topic":"agent.usage","ts":"2026-02-05T09:00:01.250+00:00"}"#,
        #"{"payload":"3 factual errors, 1 vague assertion. Fixes: hats init exit code 0 not non-zero; preset list order","topic":"spec.revision_needed","ts":"2026-02-05T08:17:10.160808331+00:00"}"#,
        #"{"payload":"Focus on error handling","topic":"human.guidance","ts":"2026-02-05T09:01:00.123456+00:00"}"#,
        #"{"ts":"2026-02-05T09:02:00.000+00:00","iteration":@I@,"hat":"reviewer","topic":"review.approved","triggered":"builder","payload":"Approved: all scenarios map to code paths."}"#,
    ]

    /// The iteration block with `@I@` replaced.
    public static func iteration(_ n: Int) -> [String] { lines.map { $0.replacingOccurrences(of: "@I@", with: String(n)) } }

    /// The record that ends a run.
    public static let terminate =
        ###"{"ts":"2026-02-05T09:30:00.500+00:00","iteration":12,"hat":"loop","topic":"loop.terminate","payload":"## Reason\ncompleted\n\n## Status\nAll tasks completed successfully.\n\n## Summary\n- Iterations: 12\n- Duration: 21m 0s\n- Exit code: 0"}"###

    /// A whole run file of about `count` lines: the iteration block repeated with growing iteration numbers,
    /// ending with `loop.terminate`.
    public static func runFile(lines count: Int) -> [String] {
        var out: [String] = []
        out.reserveCapacity(count)
        var iteration = 0
        while out.count < count - 1 {
            for line in lines where out.count < count - 1 {
                out.append(line.replacingOccurrences(of: "@I@", with: String(iteration)))
            }
            iteration += 1
        }
        out.append(terminate)
        return out
    }
}
