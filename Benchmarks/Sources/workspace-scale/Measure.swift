import Foundation  // and, through it, the C library (Glibc or Darwin)

// Measuring: one server start (first list, warm lists, RSS once the run index is complete) and the figures.

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
    name: "6. workspace: first complete GET /api/sessions after a restart (run index in the data dir)", unit: "ms", target: 300
)
let warmFigure = Figure(name: "6. workspace: warm GET /api/sessions (median of each start's requests)", unit: "ms", target: 5)
let rssFigure = Figure(name: "6. workspace: server RSS after the first start's lists (index written)", unit: "MB", target: 100)
let restartRSSFigure = Figure(name: "6. workspace: server RSS after the restart's lists", unit: "MB", target: 60)

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
