import Foundation  // and, through it, the C library (Glibc or Darwin)

// Workspace generation (ralph's layout, written directly and fast).

/// `<dir>/ws-NNN/.ralph/events-YYYYMMDD-HHMMSS.jsonl` (+ `current-events`, `current-loop-id`, an unheld `loop.lock`),
/// the same files RalphSimulator's RalphRunWriter writes. Lines are the shapes ralph writes: orchestrator records and
/// `ralph emit` lines, a token report, an object payload; each run starts with a task start and ends with `loop.terminate`.
struct Generator {
    let dir: String
    let runs: Int
    let lines: Int
    let runsPerWorkspace: Int

    var marker: String { dir + "/.bench-complete" }
    var signature: String { "runs=\(runs) lines=\(lines) per-workspace=\(runsPerWorkspace) format=1\n" }

    func isCached() -> Bool {
        (try? String(contentsOfFile: marker, encoding: .utf8)) == signature
    }

    /// Returns the bytes written.
    func generate() -> Int {
        let fm = FileManager.default
        try? fm.removeItem(atPath: dir)
        do { try fm.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch { fail("cannot create \(dir): \(error)") }
        let base = 1_770_000_000  // 2026-02-02, seconds since the epoch
        var totalBytes = 0
        var written = 0
        let started = monotonic()
        var lastReport = started
        for run in 0..<runs {
            let perRun = lines / runs + (run < lines % runs ? 1 : 0)
            let workspace = String(format: "%@/ws-%03d", dir, run / runsPerWorkspace)
            let stateDir = workspace + "/.ralph"
            if run % runsPerWorkspace == 0 {
                do { try fm.createDirectory(atPath: stateDir + "/agent", withIntermediateDirectories: true) } catch { fail("cannot create \(stateDir): \(error)") }
            }
            let start = base + run * 7_200
            let stamp = Self.fileStamp(start)
            let name = "events-\(stamp).jsonl"
            totalBytes += writeRun(path: stateDir + "/" + name, lines: perRun, start: start, run: run)
            written += perRun
            if run % runsPerWorkspace == runsPerWorkspace - 1 || run == runs - 1 {
                // The workspace's newest run is its current one; the loop is not running (the lock is not held).
                try? Data(".ralph/\(name)".utf8).write(to: URL(fileURLWithPath: stateDir + "/current-events"))
                try? Data("primary-\(stamp)".utf8).write(to: URL(fileURLWithPath: stateDir + "/current-loop-id"))
                try? Data(#"{"pid":1,"started":"2026-02-02T00:00:00Z","prompt":"bench"}"#.utf8).write(to: URL(fileURLWithPath: stateDir + "/loop.lock"))
            }
            let now = monotonic()
            if now - lastReport >= 2 || run == runs - 1 {
                lastReport = now
                let rate = Double(written) / max(now - started, 1e-9)
                log(String(format: "generating: %d/%d runs, %d/%d lines, %.0f MB, %.0f lines/s", run + 1, runs, written, lines, Double(totalBytes) / 1e6, rate))
            }
        }
        try? Data(signature.utf8).write(to: URL(fileURLWithPath: marker))
        return totalBytes
    }

    func writeRun(path: String, lines count: Int, start: Int, run: Int) -> Int {
        guard let file = fopen(path, "w") else { fail("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { fclose(file) }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        var total = 0
        func flush() {
            buffer.withUnsafeBytes { _ = fwrite($0.baseAddress, 1, $0.count, file) }
            total += buffer.count
            buffer.removeAll(keepingCapacity: true)
        }
        let hats = ["planner", "builder", "reviewer"]
        for n in 0..<count {
            let ts = Self.timestamp(start + n, micros: (n * 7919) % 1_000_000)
            let iteration = n / 10 + 1
            let line: String
            if n == 0 {
                line = #"{"ts":"\#(ts)","iteration":0,"hat":"loop","topic":"task.start","triggered":"planner","payload":"Run \#(run): review and improve all existing BDD specs across two projects:\n\n1. bdd-preset.feature\n2. hats-init.feature"}"#
            } else if n == count - 1 {
                line = ###"{"ts":"\###(ts)","iteration":\###(iteration),"hat":"loop","topic":"loop.terminate","payload":"## Reason\ncompleted\n\n## Status\nAll tasks completed successfully.\n\n## Summary\n- Iterations: \###(iteration)\n- Duration: \###(count / 60)m 0s\n- Exit code: 0"}"###
            } else {
                let hat = hats[iteration % 3]
                switch n % 10 {
                case 1: line = #"{"ts":"\#(ts)","iteration":\#(iteration),"hat":"\#(hat)","topic":"plan.ready","triggered":"builder","payload":"Plan: rewrite the four specs, then review them against the code."}"#
                case 2: line = #"{"payload":"Analyzed all 4 BDD specs. Key findings: (1) bdd-preset.feature - no scenario covers the failure path; (2) hats-init exit code is wrong","topic":"analysis.done","ts":"\#(ts)"}"#
                case 3: line = #"{"payload":"Rewrote all 4 BDD specs. bdd-preset: 14 scenarios (was 4), hats-init: 9 scenarios (was 3)","topic":"spec.draft_ready","ts":"\#(ts)"}"#
                case 4: line = #"{"ts":"\#(ts)","iteration":\#(iteration),"hat":"builder","topic":"build.done","triggered":"reviewer","payload":"tests: pass, lint: pass, typecheck: pass, audit: pass, coverage: 87%"}"#
                case 5: line = #"{"payload":{"status":"success","files":["Sources/App/main.swift","Tests/AppTests/AppTests.swift"],"duration_ms":1840},"topic":"build.done","ts":"\#(ts)"}"#
                case 6: line = #"{"payload":"{\"usage\":{\"input_tokens\":12840,\"output_tokens\":2210,\"cache_read_input_tokens\":98000,\"cache_creation_input_tokens\":4100},\"total_cost_usd\":0.4213}","topic":"agent.usage","ts":"\#(ts)"}"#
                case 7: line = #"{"payload":"3 factual errors, 1 vague assertion. Fixes: hats init exit code 0 not non-zero; preset list order","topic":"spec.revision_needed","ts":"\#(ts)"}"#
                case 8: line = #"{"payload":"Focus on error handling","topic":"human.guidance","ts":"\#(ts)"}"#
                case 9: line = #"{"ts":"\#(ts)","iteration":\#(iteration),"hat":"reviewer","topic":"review.approved","triggered":"builder","payload":"Approved: all scenarios map to code paths."}"#
                default: line = #"{"ts":"\#(ts)","iteration":\#(iteration),"hat":"\#(hat)","topic":"iteration.start","triggered":"\#(hat)","payload":"Iteration \#(iteration)"}"#
                }
            }
            buffer.append(contentsOf: line.utf8)
            buffer.append(0x0A)
            if buffer.count >= (1 << 20) - 4096 { flush() }
        }
        flush()
        return total
    }

    /// `YYYYMMDD-HHMMSS` (UTC), as in ralph's file names.
    static func fileStamp(_ seconds: Int) -> String {
        let t = civil(seconds)
        return String(format: "%04d%02d%02d-%02d%02d%02d", t.y, t.m, t.d, t.H, t.M, t.S)
    }

    /// RFC 3339 with microseconds, as ralph's orchestrator writes (`2026-02-05T08:09:13.890130+00:00`).
    static func timestamp(_ seconds: Int, micros: Int) -> String {
        let t = civil(seconds)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%06d+00:00", t.y, t.m, t.d, t.H, t.M, t.S, micros)
    }

    static func civil(_ seconds: Int) -> (y: Int, m: Int, d: Int, H: Int, M: Int, S: Int) {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        return (Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
