import Foundation
import NIOCore
import NIOPosix
import RalphAPI
import RalphFiles
import RalphSimulator

#if canImport(Glibc)
import Glibc
#endif

/// ralph-mobile-bench: end-to-end figures for scripts/bench. Starts the built server (and nginx + nchan) as
/// children in a temporary directory, measures, prints one JSON line per figure, stops everything.
@main
struct Bench {
    static func main() async {
        let options: Options
        do { options = try Options(CommandLine.arguments.dropFirst()) } catch {
            FileHandle.standardError.write(Data("ralph-mobile-bench: \(error)\n\n\(Options.usage)\n".utf8))
            exit(2)
        }
        signal(SIGPIPE, SIG_IGN)
        for sig in [SIGINT, SIGTERM] {
            signal(sig) { _ in
                Children.shared.stopAll()
                _exit(130)
            }
        }
        let bench = Bench(options: options)
        do {
            try await bench.run()
            Children.shared.stopAll()
            try? FileManager.default.removeItem(atPath: bench.root)
        } catch {
            Children.shared.stopAll()
            try? FileManager.default.removeItem(atPath: bench.root)
            FileHandle.standardError.write(Data("ralph-mobile-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    let options: Options
    let root: String
    var results = Results()
    var phaseCounter = 0

    init(options: Options) {
        self.options = options
        var template = Array((NSTemporaryDirectory() + "/ralph-mobile-bench-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        root = made.map { String(cString: $0) } ?? NSTemporaryDirectory() + "/ralph-mobile-bench-\(getpid())"
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    mutating func nextPhase() -> Int {
        phaseCounter += 1
        return phaseCounter
    }

    func note(_ text: String) {
        FileHandle.standardError.write(Data("[bench] \(text)\n".utf8))
    }

    mutating func run() async throws {
        let fileLimit = raiseFileLimit()
        let needed = options.clientCounts.max()! * 2 + options.idleConnections + 200
        guard fileLimit >= needed else {
            throw BenchError("RLIMIT_NOFILE hard limit is \(fileLimit), the bench needs \(needed) (raise it with ulimit -Hn)")
        }
        guard FileManager.default.isExecutableFile(atPath: options.server) else {
            throw BenchError("no server binary at \(options.server) (build it: swift build -c release --product ralph-mobile-server)")
        }
        let nginx = try NchanServer.locate(install: options.install)

        // Two workspaces, each with one live run held by this process (ralph's layout, lock held).
        let liveWorkspace = root + "/live", resumeWorkspace = root + "/resume"
        let live = try RalphRunWriter(workspace: liveWorkspace)
        try live.begin(prompt: "bench live run")
        let resume = try RalphRunWriter(workspace: resumeWorkspace)
        try resume.begin(prompt: "bench resume run")
        let resumePhase = nextPhase()
        let resumeFD = open(resume.eventsFile, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard resumeFD >= 0 else { throw BenchError("cannot open \(resume.eventsFile)") }
        for seq in 0..<options.resumeEvents {
            let line = EventFileAppender.recordLine(
                topic: "bench.backlog", payload: "bench:\(resumePhase):\(seq):0", iteration: 1 + seq / 100, hat: "bench"
            )
            _ = line.withUnsafeBytes { write(resumeFD, $0.baseAddress, $0.count) }
        }
        close(resumeFD)

        // Our server.
        let server = Child(
            name: "ralph-mobile-server", executable: options.server,
            arguments: ["--port", "0", "--workspace", liveWorkspace, "--workspace", resumeWorkspace, "--data-dir", root + "/data"],
            directory: root
        )
        try server.start()
        let port = Int(try server.waitFor(pattern: "listening on http://127\\.0\\.0\\.1:([0-9]+)", timeout: 30))!
        note("server pid \(server.pid) on port \(port); file limit \(fileLimit)")
        let (liveID, resumeID) = try await findSessions(port: port, live: live.eventsFile, resume: resume.eventsFile)
        // Wait until the server has indexed the backlog.
        let indexed = await waitUntil(timeout: 60, poll: 0.1) {
            (try? eventCount(port: port, session: resumeID)).map { $0 >= options.resumeEvents } ?? false
        }
        guard indexed else { throw BenchError("the server did not index the \(options.resumeEvents)-event backlog within 60 s") }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let idleRSS = residentKB(pid: server.pid) ?? 0

        let nchan = try NchanServer(nginx: nginx, directory: root + "/nginx")
        try nchan.start()
        note("nginx + nchan pid \(nchan.child.pid) on port \(nchan.port)")

        let group = MultiThreadedEventLoopGroup(numberOfThreads: options.clientThreads)
        defer { try? group.syncShutdownGracefully() }
        let liveFD = open(live.eventsFile, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard liveFD >= 0 else { throw BenchError("cannot open \(live.eventsFile)") }
        defer { close(liveFD) }
        let publisher = try BlockingHTTP(port: nchan.port)

        let ours = Target.ours(port: port, path: "/api/sessions/\(liveID)/events?history=0", fd: liveFD)
        let theirs = Target.nchan(port: nchan.port, path: "/sub", publisher: publisher)

        for run in 1...options.runs {
            note("run \(run)/\(options.runs)")
            results.add("server_idle_rss", idleRSS, unit: "KB", target: nil, higherIsBetter: false, fresh: run == 1)
            for clients in options.clientCounts {
                let target: Double = clients <= 1 ? 2 : clients <= 100 ? 5 : 10
                let a = try await latency(ours, clients: clients, group: group)
                let b = try await latency(theirs, clients: clients, group: group)
                note("\(clients) clients: ours p50 \(fmt(a.p50)) p99 \(fmt(a.p99)) max \(fmt(a.max)) ms; nchan p50 \(fmt(b.p50)) p99 \(fmt(b.p99)) max \(fmt(b.max)) ms")
                results.add("sse_p50_ms_\(clients)_clients", a.p50, unit: "ms", target: nil, higherIsBetter: false)
                results.add("sse_p99_ms_\(clients)_clients", a.p99, unit: "ms", target: target, higherIsBetter: false)
                results.add("sse_max_ms_\(clients)_clients", a.max, unit: "ms", target: nil, higherIsBetter: false)
                results.add("nchan_p50_ms_\(clients)_clients", b.p50, unit: "ms", target: nil, higherIsBetter: false)
                results.add("nchan_p99_ms_\(clients)_clients", b.p99, unit: "ms", target: nil, higherIsBetter: false)
                results.add("p99_ratio_vs_nchan_\(clients)_clients", a.p99 / max(b.p99, 0.001), unit: "x", target: 1.5, higherIsBetter: false)
            }
            let rate = try await saturation(ours, clients: options.saturationClients, events: options.saturationEvents, group: group)
            results.add("deliveries_per_s_\(options.saturationClients)_clients", rate, unit: "events/s", target: 200_000, higherIsBetter: true)
            let resumeMs = try await resumeTime(port: port, session: resumeID, phase: resumePhase, group: group)
            results.add("resume_\(options.resumeEvents)_events_ms", resumeMs, unit: "ms", target: 200, higherIsBetter: false)
            let perConnection = try await idleConnectionRSS(port: port, session: liveID, serverPID: server.pid, group: group)
            results.add("rss_per_idle_sse_connection", perConnection, unit: "KB", target: 16, higherIsBetter: false)
        }
        nchan.child.stop()
        server.stop()
        results.print()
    }

    // MARK: Figures

    enum Target {
        case ours(port: Int, path: String, fd: Int32)
        case nchan(port: Int, path: String, publisher: BlockingHTTP)

        var port: Int {
            switch self {
            case .ours(let port, _, _), .nchan(let port, _, _): port
            }
        }
        var path: String {
            switch self {
            case .ours(_, let path, _), .nchan(_, let path, _): path
            }
        }

        /// Appends (ours) or POSTs (nchan) one stamped event; the stamp is taken right before the bytes are built.
        func publish(phase: Int, seq: Int) throws {
            let stamp = monotonicNanos()
            let payload = "bench:\(phase):\(seq):\(stamp)"
            switch self {
            case .ours(_, _, let fd):
                let line = EventFileAppender.recordLine(topic: "bench.tick", payload: payload, iteration: 1, hat: "bench")
                let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                guard written == line.count else { throw BenchError("short write to the events file") }
            case .nchan(_, _, let publisher):
                let response = try publisher.request(method: "POST", path: "/pub") { Array(payload.utf8) }
                guard (200..<300).contains(response.status) else { throw BenchError("nchan publish answered \(response.status)") }
            }
        }
    }

    struct Latency {
        var p50 = 0.0, p99 = 0.0, max = 0.0
    }

    /// Connects `clients`, warms up until every client receives events, then publishes `events` paced events.
    mutating func latency(_ target: Target, clients: Int, group: MultiThreadedEventLoopGroup) async throws -> Latency {
        let tally = Tally()
        let (states, channels) = try await openSSEClients(
            group: group, host: "127.0.0.1", port: target.port, path: target.path, headers: [], count: clients, tally: tally
        )
        defer { Task { [channels] in await closeAll(channels) } }
        try await warmUp(target, clients: clients, tally: tally)
        let phase = nextPhase()
        tally.begin(phase: phase, record: true)
        let interval = Int64(options.intervalMs * 1e6)
        var next = monotonicNanos()
        for seq in 0..<options.events {
            try target.publish(phase: phase, seq: seq)
            next += interval
            sleepUntil(next)
        }
        let expected = clients * options.events
        let complete = await waitUntil(timeout: 30) { tally.received >= expected || tally.closed > 0 }
        await closeAll(channels)
        guard complete, tally.received >= expected else {
            throw BenchError("\(target.path): \(tally.received) of \(expected) deliveries arrived (\(tally.closed) connections closed)")
        }
        var all: [Int64] = []
        all.reserveCapacity(expected)
        for state in states { all += state.latencies }
        all.sort()
        func at(_ q: Double) -> Double { Double(all[Swift.min(all.count - 1, Int((q * Double(all.count)).rounded(.up)) - 1)]) / 1e6 }
        return Latency(p50: at(0.5), p99: at(0.99), max: Double(all.last!) / 1e6)
    }

    /// Publishes single events until every client has received `rounds` of them in a row (subscriptions in place).
    mutating func warmUp(_ target: Target, clients: Int, tally: Tally) async throws {
        let connected = await waitUntil(timeout: 30) { tally.connected >= clients }
        guard connected else { throw BenchError("\(target.path): only \(tally.connected) of \(clients) SSE connections got a response") }
        let phase = nextPhase()
        tally.begin(phase: phase, record: false)
        for seq in 0..<options.warmupEvents {
            try target.publish(phase: phase, seq: seq)
            let ok = await waitUntil(timeout: 10) { tally.received >= clients * (seq + 1) }
            if !ok && seq >= 5 {
                throw BenchError("\(target.path): warm-up event \(seq) reached \(tally.received - clients * seq) of \(clients) clients")
            }
            if !ok { tally.begin(phase: phase, record: false) }  // subscriptions still settling: start counting again
        }
    }

    mutating func saturation(_ target: Target, clients: Int, events: Int, group: MultiThreadedEventLoopGroup) async throws -> Double {
        let tally = Tally()
        let (_, channels) = try await openSSEClients(
            group: group, host: "127.0.0.1", port: target.port, path: target.path, headers: [], count: clients, tally: tally
        )
        try await warmUp(target, clients: clients, tally: tally)
        let phase = nextPhase()
        tally.begin(phase: phase, record: false)
        let start = monotonicNanos()
        for seq in 0..<events { try target.publish(phase: phase, seq: seq) }
        let expected = clients * events
        let complete = await waitUntil(timeout: 120, poll: 0.001) { tally.received >= expected || tally.closed > 0 }
        let elapsed = Double(monotonicNanos() - start) / 1e9
        let received = tally.received, closed = tally.closed
        await closeAll(channels)
        guard complete, closed == 0 else {
            throw BenchError("saturation: \(received) of \(expected) deliveries in \(elapsed) s, \(closed) connections closed")
        }
        let rate = Double(received) / elapsed
        note("saturation: \(received) deliveries to \(clients) clients in \(fmt(elapsed * 1000)) ms = \(Int(rate))/s")
        return rate
    }

    func resumeTime(port: Int, session: String, phase: Int, group: MultiThreadedEventLoopGroup) async throws -> Double {
        let tally = Tally()
        tally.begin(phase: phase, record: false)
        let start = monotonicNanos()
        let (_, channels) = try await openSSEClients(
            group: group, host: "127.0.0.1", port: port, path: "/api/sessions/\(session)/events",
            headers: [("Last-Event-ID", "0")], count: 1, tally: tally
        )
        let complete = await waitUntil(timeout: 30, poll: 0.0005) { tally.received >= options.resumeEvents || tally.closed > 0 }
        let elapsed = Double(monotonicNanos() - start) / 1e6
        await closeAll(channels)
        guard complete, tally.received >= options.resumeEvents else {
            throw BenchError("resume: \(tally.received) of \(options.resumeEvents) events arrived")
        }
        note("resume: \(options.resumeEvents) events after Last-Event-ID 0 in \(fmt(elapsed)) ms")
        return elapsed
    }

    func idleConnectionRSS(port: Int, session: String, serverPID: Int32, group: MultiThreadedEventLoopGroup) async throws -> Double {
        try await Task.sleep(nanoseconds: 500_000_000)
        guard let before = residentKB(pid: serverPID) else { throw BenchError("cannot read /proc/\(serverPID)/status") }
        let tally = Tally()
        let count = options.idleConnections
        let (_, channels) = try await openSSEClients(
            group: group, host: "127.0.0.1", port: port, path: "/api/sessions/\(session)/events?history=0", headers: [],
            count: count, tally: tally
        )
        let connected = await waitUntil(timeout: 30) { tally.connected >= count }
        guard connected else { throw BenchError("idle connections: \(tally.connected) of \(count) answered") }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        guard let after = residentKB(pid: serverPID) else { throw BenchError("cannot read /proc/\(serverPID)/status") }
        await closeAll(channels)
        let per = Double(after - before) / Double(count)
        note("idle connections: RSS \(before) KB → \(after) KB with \(count) connections = \(fmt(per)) KB each")
        return per
    }

    // MARK: Helpers

    func findSessions(port: Int, live: String, resume: String) async throws -> (String, String) {
        var ids: (String?, String?) = (nil, nil)
        let found = await waitUntil(timeout: 30, poll: 0.1) {
            guard let http = try? BlockingHTTP(port: port), let response = try? http.request(method: "GET", path: "/api/sessions"),
                let list = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]
            else { return false }
            for session in list {
                guard let path = session["path"] as? String, let id = session["id"] as? String else { continue }
                if path.hasSuffix(URL(fileURLWithPath: live).lastPathComponent) && path.contains("/live/") { ids.0 = id }
                if path.hasSuffix(URL(fileURLWithPath: resume).lastPathComponent) && path.contains("/resume/") { ids.1 = id }
            }
            return ids.0 != nil && ids.1 != nil
        }
        guard found, let a = ids.0, let b = ids.1 else { throw BenchError("the server did not list both bench runs within 30 s") }
        return (a, b)
    }
}

func eventCount(port: Int, session: String) throws -> Int {
    let http = try BlockingHTTP(port: port)
    let response = try http.request(method: "GET", path: "/api/sessions/\(session)/status")
    let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
    return (object?["event_count"] as? Int) ?? 0
}

func sleepUntil(_ deadline: Int64) {
    let now = monotonicNanos()
    guard deadline > now else { return }
    var ts = timespec(tv_sec: Int((deadline - now) / 1_000_000_000), tv_nsec: Int((deadline - now) % 1_000_000_000))
    nanosleep(&ts, nil)
}

func fmt(_ value: Double) -> String { String(format: "%.3f", value) }

/// Figures over repeated runs; printed as JSON lines (value = median) and a human line each.
struct Results {
    struct Figure {
        var name: String
        var unit: String
        var target: Double?
        var higherIsBetter: Bool
        var values: [Double]
    }
    var figures: [Figure] = []

    mutating func add(_ name: String, _ value: Double, unit: String, target: Double?, higherIsBetter: Bool, fresh: Bool = true) {
        if let i = figures.firstIndex(where: { $0.name == name }) {
            figures[i].values.append(value)
        } else {
            figures.append(Figure(name: name, unit: unit, target: target, higherIsBetter: higherIsBetter, values: [value]))
        }
    }

    mutating func add(_ name: String, _ value: Int, unit: String, target: Double?, higherIsBetter: Bool, fresh: Bool) {
        guard fresh else { return }
        add(name, Double(value), unit: unit, target: target, higherIsBetter: higherIsBetter)
    }

    func print() {
        for figure in figures {
            let sorted = figure.values.sorted()
            let median = sorted[sorted.count / 2]
            var object: [String: Any] = [
                "figure": figure.name, "value": median, "unit": figure.unit, "min": sorted.first!, "median": median,
                "max": sorted.last!, "runs": figure.values, "higher_is_better": figure.higherIsBetter,
            ]
            if let target = figure.target {
                object["target"] = target
                object["met"] = figure.higherIsBetter ? median >= target : median <= target
            } else {
                object["target"] = NSNull()
            }
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            Swift.print(String(decoding: data, as: UTF8.self))
            let met = figure.target.map { t in (figure.higherIsBetter ? median >= t : median <= t) ? "met" : "NOT met" } ?? ""
            Swift.print("# \(figure.name): min \(fmt(sorted.first!)) median \(fmt(median)) max \(fmt(sorted.last!)) \(figure.unit) \(figure.target.map { "target \(fmt($0)) " } ?? "")\(met)")
        }
    }
}

struct Options {
    var server = ".build/release/ralph-mobile-server"
    var runs = 3
    var clientCounts = [1, 100, 1000]
    var events = 300
    var warmupEvents = 20
    var intervalMs = 5.0
    var saturationClients = 1000
    var saturationEvents = 1000
    var resumeEvents = 10_000
    var idleConnections = 2000
    var clientThreads = 2
    var install = false

    static let usage = """
        usage: ralph-mobile-bench [--server PATH] [--runs N] [--clients 1,100,1000] [--events N] [--interval-ms MS]
                                  [--saturation-clients N] [--saturation-events N] [--resume-events N]
                                  [--idle-connections N] [--client-threads N] [--install]
        Prints one JSON line per figure: {"figure","value"(median),"unit","target","met","min","median","max","runs"}.
        --install: apt-get install nginx libnginx-mod-nchan if they are missing.
        """

    init(_ arguments: ArraySlice<String>) throws {
        var args = Array(arguments)
        func value(_ flag: String) throws -> String {
            guard !args.isEmpty else { throw BenchError("\(flag) needs a value") }
            return args.removeFirst()
        }
        func int(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let n = Int(text), n > 0 else { throw BenchError("\(flag) needs a positive integer, got \(text)") }
            return n
        }
        while !args.isEmpty {
            let flag = args.removeFirst()
            switch flag {
            case "--server": server = try value(flag)
            case "--runs": runs = try int(flag)
            case "--clients":
                clientCounts = try value(flag).split(separator: ",").map {
                    guard let n = Int($0), n > 0 else { throw BenchError("--clients takes positive integers") }
                    return n
                }
            case "--events": events = try int(flag)
            case "--warmup-events": warmupEvents = try int(flag)
            case "--interval-ms":
                guard let ms = Double(try value(flag)), ms >= 0 else { throw BenchError("--interval-ms needs a number") }
                intervalMs = ms
            case "--saturation-clients": saturationClients = try int(flag)
            case "--saturation-events": saturationEvents = try int(flag)
            case "--resume-events": resumeEvents = try int(flag)
            case "--idle-connections": idleConnections = try int(flag)
            case "--client-threads": clientThreads = try int(flag)
            case "--install": install = true
            case "-h", "--help":
                Swift.print(Options.usage)
                exit(0)
            default: throw BenchError("unknown option \(flag)")
            }
        }
        guard !clientCounts.isEmpty else { throw BenchError("--clients is empty") }
    }
}
