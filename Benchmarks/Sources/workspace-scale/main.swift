// workspace-scale: figure 6 of issue 9. A workspace of 1 000 runs holding 10 M event lines in ralph's real layout;
// for a first start on an empty data dir (every line folded, then indexed) and for a restart on the same data dir
// (the run index read back): the time from starting ralph-mobile-server to the first complete `GET /api/sessions`,
// the warm list time and the server's resident memory once its index is complete.
//
//   swift run -c release --package-path Benchmarks workspace-scale --server .build/release/ralph-mobile-server
//
// Options: --server <path> (required), --dir <dir> (where the workspace is generated and cached; default
// $TMPDIR/ralph-bench-workspace-<runs>x<lines>), --runs N (1000), --lines N (total, 10000000), --runs-per-workspace N
// (20), --repeat N (3), --warm N (20 requests), --timeout S (per server start, 600).
//
// Everything printed is measured in this run. One JSON line per figure and repetition, then min/median/max.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The server being measured: killed if this program fails or is interrupted.
nonisolated(unsafe) var runningServerPID: Int32 = 0

// MARK: - Options

struct Options {
    var server: String?
    var dir: String?
    var runs = 1_000
    var lines = 10_000_000
    var runsPerWorkspace = 20
    var repeats = 3
    var warm = 20
    var timeout: Double = 600

    static func parse(_ args: [String]) -> Options {
        var o = Options()
        var i = 0
        func value() -> String {
            i += 1
            guard i < args.count else { fail("\(args[i - 1]) needs a value") }
            return args[i]
        }
        func int(_ s: String) -> Int {
            guard let v = Int(s.replacingOccurrences(of: "_", with: "")), v > 0 else { fail("not a positive integer: \(s)") }
            return v
        }
        while i < args.count {
            switch args[i] {
            case "--server": o.server = value()
            case "--dir": o.dir = value()
            case "--runs": o.runs = int(value())
            case "--lines": o.lines = int(value())
            case "--runs-per-workspace": o.runsPerWorkspace = int(value())
            case "--repeat": o.repeats = int(value())
            case "--warm": o.warm = int(value())
            case "--timeout": o.timeout = Double(int(value()))
            case "-h", "--help":
                print("usage: workspace-scale --server <ralph-mobile-server> [--dir D] [--runs 1000] [--lines 10000000] [--runs-per-workspace 20] [--repeat 3] [--warm 20] [--timeout 600]")
                exit(0)
            default: fail("unknown argument \(args[i]) (see --help)")
            }
            i += 1
        }
        return o
    }
}

func fail(_ message: String) -> Never {
    if runningServerPID > 0 { kill(runningServerPID, SIGKILL) }
    FileHandle.standardError.write(Data("workspace-scale: error: \(message)\n".utf8))
    exit(1)
}

func log(_ message: String) {
    FileHandle.standardError.write(Data("workspace-scale: \(message)\n".utf8))
}

func monotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

// MARK: - Workspace generation (ralph's layout, written directly and fast)

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

// MARK: - HTTP (a minimal HTTP/1.1 client on a blocking socket: no client library in the measured path)

final class HTTPConnection {
    let fd: Int32
    private var pending: [UInt8] = []

    init?(port: UInt16) {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else {
            close(s)
            return nil
        }
        var one: Int32 = 1
        setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        fd = s
    }

    deinit { close(fd) }

    /// GET on a kept-alive connection; returns the status and body, or nil if the connection failed.
    func get(_ path: String) -> (status: Int, body: [UInt8])? {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n".utf8)
        let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { return nil }
        guard let headerEnd = readUntil(Array("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: pending[0..<headerEnd], as: UTF8.self)
        pending.removeFirst(headerEnd + 4)
        let headLines = head.split(separator: "\r\n")
        guard let statusLine = headLines.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else { return nil }
        var length: Int?
        var chunked = false
        for line in headLines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.count == 2 else { continue }
            if parts[0] == "content-length" { length = Int(parts[1]) }
            if parts[0] == "transfer-encoding", parts[1].contains("chunked") { chunked = true }
        }
        if let length {
            guard fill(length) else { return nil }
            let body = Array(pending[0..<length])
            pending.removeFirst(length)
            return (status, body)
        }
        guard chunked else { return nil }
        var body: [UInt8] = []
        while true {
            guard let lineEnd = readUntil(Array("\r\n".utf8)) else { return nil }
            let sizeText = String(decoding: pending[0..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
            pending.removeFirst(lineEnd + 2)
            guard fill(size + 2) else { return nil }
            body.append(contentsOf: pending[0..<size])
            pending.removeFirst(size + 2)
            if size == 0 { return (status, body) }
        }
    }

    private func receive() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        pending.append(contentsOf: chunk[0..<n])
        return true
    }

    private func fill(_ count: Int) -> Bool {
        while pending.count < count { guard receive() else { return false } }
        return true
    }

    private func readUntil(_ marker: [UInt8]) -> Int? {
        var searchFrom = 0
        while true {
            if pending.count >= marker.count {
                var i = searchFrom
                while i + marker.count <= pending.count {
                    if pending[i] == marker[0], Array(pending[i..<(i + marker.count)]) == marker { return i }
                    i += 1
                }
                searchFrom = max(0, pending.count - marker.count + 1)
            }
            guard receive() else { return nil }
        }
    }
}

// MARK: - Server process

final class ServerProcess: @unchecked Sendable {
    let process = Process()
    let output = Pipe()
    private let lock = NSLock()
    private var text = ""
    private(set) var startedAt: Double = 0

    init(server: String, workspace: String, dataDir: String) {
        process.executableURL = URL(fileURLWithPath: server)
        process.arguments = ["--port", "0", "--workspace", workspace, "--data-dir", dataDir, "--log-level", "info"]
        process.standardOutput = output
        process.standardError = output
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "RALPH_MOBILE_API_KEY")
        process.environment = environment
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.lock()
            self.text += String(decoding: data, as: UTF8.self)
            self.lock.unlock()
        }
        startedAt = monotonic()
        do { try process.run() } catch { fail("cannot start \(server): \(error)") }
    }

    var log: String {
        lock.lock()
        defer { lock.unlock() }
        return text
    }

    /// The port from `listening on http://127.0.0.1:<port>`.
    func port() -> UInt16? {
        guard let range = log.range(of: "listening on http://127.0.0.1:") else { return nil }
        let digits = log[range.upperBound...].prefix { $0.isNumber }
        return UInt16(digits)
    }

    /// VmRSS in kB from /proc/<pid>/status.
    func rssKB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = monotonic() + 10
        while process.isRunning, monotonic() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
    }
}

for sig in [SIGINT, SIGTERM] {
    signal(sig) { s in
        if runningServerPID > 0 { kill(runningServerPID, SIGKILL) }
        _exit(128 + s)
    }
}

// MARK: - Measuring

struct Figure {
    let name: String
    let unit: String
    let target: Double
}

let coldFigure = Figure(
    name: "6. workspace 1 000 runs / 10 M lines: first complete GET /api/sessions, first start (no index: every line folded)", unit: "ms",
    target: 1_000
)
let restartFigure = Figure(
    name: "6. workspace: first complete GET /api/sessions after a restart (run index in the data dir)", unit: "ms", target: 1_000
)
let warmFigure = Figure(name: "6. workspace: warm GET /api/sessions (median of each start's requests)", unit: "ms", target: 20)
let rssFigure = Figure(name: "6. workspace: server RSS after the first start's lists (index written)", unit: "MB", target: 100)
let restartRSSFigure = Figure(name: "6. workspace: server RSS after the restart's lists", unit: "MB", target: 100)

func emit(_ figure: Figure, _ value: Double, extra: String = "") {
    let met = value <= figure.target
    let rounded = (value * 100).rounded() / 100
    print("  \(figure.name): \(rounded) \(figure.unit) (target ≤ \(figure.target) \(figure.unit): \(met ? "met" : "NOT met"))\(extra)")
}

struct Sessions {
    let count: Int
    let events: Int
}

func parseSessions(_ body: [UInt8]) -> Sessions? {
    guard let array = try? JSONSerialization.jsonObject(with: Data(body)) as? [[String: Any]] else { return nil }
    let events = array.reduce(0) { $0 + (($1["event_count"] as? Int) ?? 0) }
    return Sessions(count: array.count, events: events)
}

struct Start {
    let firstListMs: Double
    let warmMs: Double
    let rssMB: Double
    let listBytes: Int
}

struct Repetition {
    let first: Start
    let restart: Start
}

/// One repetition: a first start on an empty data dir (every run folded from its file, then indexed), then a restart
/// on the same data dir (the index read back, only appended bytes read).
func measureOnce(options: Options, workspace: String, expectedRuns: Int, expectedLines: Int, index: Int) -> Repetition {
    let dataDir = NSTemporaryDirectory() + "ralph-bench-data-\(getpid())-\(index)"
    try? FileManager.default.removeItem(atPath: dataDir)
    try? FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dataDir) }
    let first = measureStart(options: options, workspace: workspace, dataDir: dataDir, expectedRuns: expectedRuns, expectedLines: expectedLines)
    let restart = measureStart(options: options, workspace: workspace, dataDir: dataDir, expectedRuns: expectedRuns, expectedLines: expectedLines)
    return Repetition(first: first, restart: restart)
}

/// Starts the server, times its first complete list, then warm lists, waits for the run index to be complete, reads
/// the RSS and stops the server (which writes what is left of its index).
func measureStart(options: Options, workspace: String, dataDir: String, expectedRuns: Int, expectedLines: Int) -> Start {
    let server = ServerProcess(server: options.server!, workspace: workspace, dataDir: dataDir)
    runningServerPID = server.process.processIdentifier
    defer {
        server.stop()
        runningServerPID = 0
    }
    let deadline = server.startedAt + options.timeout
    var port: UInt16?
    while port == nil {
        port = server.port()
        if port != nil { break }
        guard server.process.isRunning else { fail("the server exited (status \(server.process.terminationStatus)) before listening:\n\(server.log)") }
        guard monotonic() < deadline else { fail("the server did not log `listening on` within \(options.timeout) s:\n\(server.log)") }
        usleep(1_000)
    }
    // First complete list: every run, every line folded (the event counts add up to the lines written).
    var cold: Double?
    var body: [UInt8] = []
    var lastSeen = "no answer"
    while cold == nil {
        guard monotonic() < deadline else { fail("no complete GET /api/sessions within \(options.timeout) s (last: \(lastSeen))") }
        guard server.process.isRunning else { fail("the server exited:\n\(server.log)") }
        if let connection = HTTPConnection(port: port!), let response = connection.get("/api/sessions") {
            if response.status == 200, let sessions = parseSessions(response.body) {
                lastSeen = "\(sessions.count) runs, \(sessions.events) events"
                if sessions.count == expectedRuns, sessions.events == expectedLines {
                    cold = (monotonic() - server.startedAt) * 1000
                    body = response.body
                    break
                }
            } else {
                lastSeen = "HTTP \(response.status)"
            }
        }
        usleep(2_000)
    }
    // Warm list: one kept-alive connection, the median of `warm` requests after one unmeasured request.
    guard let connection = HTTPConnection(port: port!) else { fail("cannot connect to the server") }
    _ = connection.get("/api/sessions")
    var times: [Double] = []
    for _ in 0..<options.warm {
        let t0 = monotonic()
        guard let response = connection.get("/api/sessions"), response.status == 200 else { fail("warm GET /api/sessions failed") }
        times.append((monotonic() - t0) * 1000)
        if response.body.count < body.count / 2 { fail("warm GET /api/sessions returned a short body") }
    }
    times.sort()
    let warm = times[times.count / 2]
    // The index is written in the background after the first list; the memory figure is taken once it is complete
    // (finished runs keep only their summary in memory from then on).
    let indexDir = dataDir + "/run-index"
    while (try? FileManager.default.contentsOfDirectory(atPath: indexDir).filter { $0.hasSuffix(".idx") }.count) ?? 0 < expectedRuns {
        guard monotonic() < deadline else { fail("the run index was not complete within \(options.timeout) s") }
        usleep(50_000)
    }
    usleep(500_000)
    guard let rss = server.rssKB() else { fail("cannot read /proc/\(server.process.processIdentifier)/status") }
    return Start(firstListMs: cold!, warmMs: warm, rssMB: Double(rss) / 1024, listBytes: body.count)
}

// MARK: - Main

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
guard let server = options.server else { fail("--server <path to a release ralph-mobile-server> is required (swift build -c release --product ralph-mobile-server)") }
guard FileManager.default.isExecutableFile(atPath: server) else { fail("\(server) is not an executable file") }
guard options.runs >= options.runsPerWorkspace || options.runs >= 1 else { fail("--runs must be at least 1") }
guard options.lines >= options.runs * 2 else { fail("--lines must be at least 2 per run") }
let dir = options.dir ?? (NSTemporaryDirectory() + "ralph-bench-workspace-\(options.runs)x\(options.lines)")
let generator = Generator(dir: dir, runs: options.runs, lines: options.lines, runsPerWorkspace: options.runsPerWorkspace)
if generator.isCached() {
    log("using the cached workspace \(dir) (\(options.runs) runs, \(options.lines) lines)")
} else {
    log("generating \(options.runs) runs / \(options.lines) lines in \(dir)")
    let t0 = monotonic()
    let bytes = generator.generate()
    let seconds = monotonic() - t0
    print(#"{"figure": "6. workspace generation (setup, cached between runs)", "value": \#((seconds * 100).rounded() / 100), "unit": "s", "bytes": \#(bytes)}"#)
    print(String(format: "  generated %d runs / %d lines (%.0f MB) in %.1f s", options.runs, options.lines, Double(bytes) / 1e6, seconds))
}

var repetitions: [Repetition] = []
for index in 0..<options.repeats {
    log("repetition \(index + 1)/\(options.repeats): starting \(server)")
    let r = measureOnce(options: options, workspace: dir, expectedRuns: options.runs, expectedLines: options.lines, index: index)
    repetitions.append(r)
    print("repetition \(index + 1) of \(options.repeats) (\(options.runs) runs, \(options.lines) lines, list \(r.first.listBytes) bytes):")
    emit(coldFigure, r.first.firstListMs)
    emit(rssFigure, r.first.rssMB)
    emit(restartFigure, r.restart.firstListMs)
    emit(warmFigure, r.first.warmMs, extra: " (first start)")
    emit(warmFigure, r.restart.warmMs, extra: " (restart)")
    emit(restartRSSFigure, r.restart.rssMB)
}

func summary(_ figure: Figure, _ values: [Double]) {
    let sorted = values.sorted()
    let median = sorted[sorted.count / 2]
    func r(_ v: Double) -> Double { (v * 100).rounded() / 100 }
    let met = median <= figure.target
    print(#"{"figure": "\#(figure.name)", "value": \#(r(median)), "min": \#(r(sorted.first!)), "max": \#(r(sorted.last!)), "median": \#(r(median)), "unit": "\#(figure.unit)", "target": \#(figure.target), "met": \#(met), "repetitions": \#(values.count), "runs": \#(options.runs), "lines": \#(options.lines)}"#)
    print("  \(figure.name): min \(r(sorted.first!)) / median \(r(median)) / max \(r(sorted.last!)) \(figure.unit) (target ≤ \(figure.target): \(met ? "met" : "NOT met"))")
}
print("summary over \(repetitions.count) repetitions (each: a first start and a restart):")
summary(coldFigure, repetitions.map(\.first.firstListMs))
summary(restartFigure, repetitions.map(\.restart.firstListMs))
summary(warmFigure, repetitions.flatMap { [$0.first.warmMs, $0.restart.warmMs] })
summary(rssFigure, repetitions.map(\.first.rssMB))
summary(restartRSSFigure, repetitions.map(\.restart.rssMB))
