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
        var bench = Bench(options: options)
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
            ) + [0x0A]
            _ = line.withUnsafeBytes { write(resumeFD, $0.baseAddress, $0.count) }
        }
        close(resumeFD)

        // Our server; fake-claude (the claude CLI double, next to it) answers the chat figure.
        setenv("FAKE_CLAUDE_DELAY_MS", String(options.chatIntervalMs), 1)
        setenv("CLAUDE_CONFIG_DIR", root + "/claude", 1)
        unsetenv("RALPH_MOBILE_API_KEY")
        let workspaces = Workspaces(live: liveWorkspace, resume: resumeWorkspace, liveFile: live.eventsFile, resumeFile: resume.eventsFile)
        let (server, port, liveID, resumeID) = try await startServer(workspaces, name: "data")
        note("server pid \(server.pid) on port \(port); file limit \(fileLimit)")

        let nchan = try NchanServer(nginx: nginx, directory: root + "/nginx")
        try nchan.start()
        note("nginx + nchan pid \(nchan.child.pid) on port \(nchan.port)")

        let group = MultiThreadedEventLoopGroup(numberOfThreads: options.clientThreads)
        do {
            try await measure(
                group: group, port: port, nchan: nchan, workspaces: workspaces, liveID: liveID, resumeID: resumeID,
                resumePhase: resumePhase
            )
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try? await group.shutdownGracefully()
        nchan.child.stop()
        server.stop()
        results.print()
    }

    struct Workspaces {
        var live: String
        var resume: String
        var liveFile: String
        var resumeFile: String
    }

    /// Starts a server on the bench workspaces (its own data directory) and waits until it has indexed both runs.
    func startServer(_ workspaces: Workspaces, name: String) async throws -> (Child, Int, String, String) {
        let fakeClaude = URL(fileURLWithPath: options.server).deletingLastPathComponent().appendingPathComponent("fake-claude").path
        guard FileManager.default.isExecutableFile(atPath: fakeClaude) else {
            throw BenchError("no fake-claude next to the server (build it: swift build -c release --product fake-claude)")
        }
        let server = Child(
            name: "ralph-mobile-server", executable: options.server,
            arguments: [
                "--port", "0", "--workspace", workspaces.live, "--workspace", workspaces.resume, "--data-dir", root + "/" + name,
                "--claude-command", fakeClaude,
            ],
            directory: root
        )
        try server.start()
        let port = Int(try server.waitFor(pattern: "listening on http://127\\.0\\.0\\.1:([0-9]+)", timeout: 30))!
        let (liveID, resumeID) = try await findSessions(port: port, live: workspaces.liveFile, resume: workspaces.resumeFile)
        let indexed = await waitUntil(timeout: 60, poll: 0.1) {
            (try? eventCount(port: port, session: resumeID)).map { $0 >= options.resumeEvents } ?? false
        }
        guard indexed else {
            let seen = (try? eventCount(port: port, session: resumeID)).map(String.init) ?? "no answer"
            throw BenchError("the server did not index the \(options.resumeEvents)-event backlog within 60 s (event_count: \(seen))")
        }
        return (server, port, liveID, resumeID)
    }

    mutating func measure(
        group: MultiThreadedEventLoopGroup, port: Int, nchan: NchanServer, workspaces: Workspaces, liveID: String, resumeID: String,
        resumePhase: Int
    ) async throws {
        let liveFD = open(workspaces.liveFile, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard liveFD >= 0 else { throw BenchError("cannot open \(workspaces.liveFile)") }
        defer { close(liveFD) }
        let publisher = try BlockingHTTP(port: nchan.port)

        let ours = Target.ours(port: port, path: "/api/sessions/\(liveID)/events?history=0", fd: liveFD)
        let theirs = Target.nchan(port: nchan.port, path: "/sub", publisher: publisher)
        let conversation = try createConversation(port: port, cwd: workspaces.live)

        for run in 1...options.runs {
            note("run \(run)/\(options.runs)")
            let (idle, perConnection) = try await idleMemory(workspaces, run: run, group: group)
            results.add("5. server idle RSS (fresh server, 2 live runs)", Double(idle), unit: "KB", target: nil, higherIsBetter: false)
            results.add("5. RSS per idle SSE connection (\(options.idleConnections) open)", perConnection, unit: "KB", target: 16, higherIsBetter: false)
            let keptAlive = try await keepAliveMemory(workspaces, run: run)
            results.add("5. for scale: RSS per idle kept-alive HTTP connection, no stream (\(options.idleConnections) open)", keptAlive, unit: "KB", target: nil, higherIsBetter: false)
            for clients in options.clientCounts {
                let target: Double = clients <= 1 ? 2 : clients <= 100 ? 5 : 10
                let interval = max(options.intervalMs, Double(clients) / options.latencyLoad * 1000)
                let a = try await latency(ours, clients: clients, intervalMs: interval, group: group)
                let b = try await latency(theirs, clients: clients, intervalMs: interval, group: group)
                note("\(clients) clients, an event every \(fmt(interval)) ms: ours p50 \(fmt(a.p50)) p99 \(fmt(a.p99)) max \(fmt(a.max)) ms; nchan p50 \(fmt(b.p50)) p99 \(fmt(b.p99)) max \(fmt(b.max)) ms")
                results.add("1. append → SSE p50, \(clients) client\(clients == 1 ? "" : "s")", a.p50, unit: "ms", target: nil, higherIsBetter: false)
                results.add("1. append → SSE p99, \(clients) client\(clients == 1 ? "" : "s")", a.p99, unit: "ms", target: target, higherIsBetter: false)
                results.add("1. append → SSE max, \(clients) client\(clients == 1 ? "" : "s")", a.max, unit: "ms", target: nil, higherIsBetter: false)
                results.add("2. nginx+nchan POST → EventSource p50, \(clients) client\(clients == 1 ? "" : "s")", b.p50, unit: "ms", target: nil, higherIsBetter: false)
                results.add("2. nginx+nchan POST → EventSource p99, \(clients) client\(clients == 1 ? "" : "s")", b.p99, unit: "ms", target: nil, higherIsBetter: false)
                results.add("2. our p99 / nchan p99, \(clients) client\(clients == 1 ? "" : "s")", a.p99 / max(b.p99, 0.001), unit: "x", target: 1.5, higherIsBetter: false)
            }
            let rate = try await saturation(ours, clients: options.saturationClients, events: options.saturationEvents, group: group)
            results.add("3. deliveries/s at saturation, \(options.saturationClients) clients", rate, unit: "events/s", target: 200_000, higherIsBetter: true)
            let resumeMs = try await resumeTime(port: port, session: resumeID, phase: resumePhase, group: group)
            results.add("4. resume \(options.resumeEvents) events behind (Last-Event-ID)", resumeMs, unit: "ms", target: 200, higherIsBetter: false)
            let chat = try await chatLatency(port: port, conversation: conversation, group: group)
            results.add("7. chat: CLI double line → chunk p50", chat.p50, unit: "ms", target: nil, higherIsBetter: false)
            results.add("7. chat: CLI double line → chunk p99", chat.p99, unit: "ms", target: 5, higherIsBetter: false)
            results.add("7. chat: CLI double line → chunk max", chat.max, unit: "ms", target: nil, higherIsBetter: false)
        }
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
                let line = EventFileAppender.recordLine(topic: "bench.tick", payload: payload, iteration: 1, hat: "bench") + [0x0A]
                let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                guard written == line.count else { throw BenchError("short write to the events file") }
            case .nchan(_, _, let publisher):
                let response = try publisher.request(method: "POST", path: "/pub") { Array(payload.utf8) }
                guard (200..<300).contains(response.status) else { throw BenchError("nchan publish answered \(response.status)") }
            }
        }
    }

    /// Percentiles (nearest rank) of latencies in nanoseconds, in milliseconds.
    struct Latency {
        var p50 = 0.0, p99 = 0.0, max = 0.0

        init(_ nanoseconds: [Int64]) {
            let all = nanoseconds.sorted()
            guard let last = all.last else { return }
            func at(_ q: Double) -> Double { Double(all[Swift.min(all.count - 1, Swift.max(0, Int((q * Double(all.count)).rounded(.up)) - 1))]) / 1e6 }
            p50 = at(0.5)
            p99 = at(0.99)
            max = Double(last) / 1e6
        }
    }

    /// Connects `clients`, warms up until every client receives events, then publishes `events` paced events.
    mutating func latency(_ target: Target, clients: Int, intervalMs: Double, group: MultiThreadedEventLoopGroup) async throws -> Latency {
        let tally = Tally()
        let (states, channels) = try await openSSEClients(
            group: group, host: "127.0.0.1", port: target.port, path: target.path, headers: [], count: clients, tally: tally
        )
        defer { Task { [channels] in await closeAll(channels) } }
        try await warmUp(target, clients: clients, tally: tally)
        let phase = nextPhase()
        tally.begin(phase: phase, record: true)
        let interval = Int64(intervalMs * 1e6)
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
        return Latency(states.flatMap(\.latencies))
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

    /// A fresh server (so no earlier measurement's heap is counted): its RSS once idle, then the RSS each of
    /// `idleConnections` open SSE streams adds.
    func idleMemory(_ workspaces: Workspaces, run: Int, group: MultiThreadedEventLoopGroup) async throws -> (Int, Double) {
        let (server, port, liveID, _) = try await startServer(workspaces, name: "idle-\(run)")
        defer { server.stop() }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        guard let before = residentKB(pid: server.pid) else { throw BenchError("cannot read /proc/\(server.pid)/status") }
        let tally = Tally()
        let count = options.idleConnections
        let (_, channels) = try await openSSEClients(
            group: group, host: "127.0.0.1", port: port, path: "/api/sessions/\(liveID)/events?history=0", headers: [],
            count: count, tally: tally
        )
        let connected = await waitUntil(timeout: 30) { tally.connected >= count }
        guard connected else {
            await closeAll(channels)
            throw BenchError("idle connections: \(tally.connected) of \(count) answered")
        }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let after = residentKB(pid: server.pid)
        await closeAll(channels)
        guard let after else { throw BenchError("cannot read /proc/\(server.pid)/status") }
        let per = Double(after - before) / Double(count)
        note("fresh server: idle RSS \(before) KB; \(after) KB with \(count) idle SSE connections = \(fmt(per)) KB each")
        return (before, per)
    }

    /// What the HTTP server itself keeps per connection: a fresh server, `idleConnections` connections that each made
    /// one request (`GET /api/health`) and stay open, idle. The floor under the per-stream figure.
    func keepAliveMemory(_ workspaces: Workspaces, run: Int) async throws -> Double {
        let (server, port, _, _) = try await startServer(workspaces, name: "keepalive-\(run)")
        defer { server.stop() }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        guard let before = residentKB(pid: server.pid) else { throw BenchError("cannot read /proc/\(server.pid)/status") }
        var connections: [BlockingHTTP] = []
        connections.reserveCapacity(options.idleConnections)
        for _ in 0..<options.idleConnections {
            let connection = try BlockingHTTP(port: port)
            let response = try connection.request(method: "GET", path: "/api/health")
            guard response.status == 200 else { throw BenchError("GET /api/health answered \(response.status)") }
            connections.append(connection)
        }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        guard let after = residentKB(pid: server.pid) else { throw BenchError("cannot read /proc/\(server.pid)/status") }
        let per = Double(after - before) / Double(connections.count)
        note("fresh server: \(before) KB; \(after) KB with \(connections.count) idle kept-alive connections = \(fmt(per)) KB each")
        connections.removeAll()
        return per
    }

    /// A conversation with the claude double in the live workspace.
    func createConversation(port: Int, cwd: String) throws -> String {
        let http = try BlockingHTTP(port: port)
        let body = try JSONSerialization.data(withJSONObject: ["cwd": cwd, "title": "bench"])
        let response = try http.request(method: "POST", path: "/api/conversations") { Array(body) }
        guard (200..<300).contains(response.status),
            let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], let id = object["id"] as? String
        else {
            throw BenchError("POST /api/conversations answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return id
    }

    /// The claude double streams `chatChunks` text deltas, each stamped right before it is written to its stdout;
    /// a client of the conversation's event stream takes each `chunk`'s latency.
    mutating func chatLatency(port: Int, conversation: String, group: MultiThreadedEventLoopGroup) async throws -> Latency {
        let tally = Tally()
        let phase = nextPhase()
        tally.begin(phase: phase, record: true)
        let (states, channels) = try await openSSEClients(
            group: group, host: "127.0.0.1", port: port, path: "/api/conversations/\(conversation)/events", headers: [], count: 1,
            tally: tally
        )
        let connected = await waitUntil(timeout: 10) { tally.connected >= 1 }
        guard connected else {
            await closeAll(channels)
            throw BenchError("chat: the conversation's event stream did not answer")
        }
        let http = try BlockingHTTP(port: port)
        let body = try JSONSerialization.data(withJSONObject: ["text": "#script\nstamped \(phase) \(options.chatChunks)"])
        let response = try http.request(method: "POST", path: "/api/conversations/\(conversation)/messages") { Array(body) }
        guard (200..<300).contains(response.status) else {
            await closeAll(channels)
            throw BenchError("chat: POST messages answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        let complete = await waitUntil(timeout: 60) { tally.received >= options.chatChunks || tally.closed > 0 }
        await closeAll(channels)
        guard complete, tally.received >= options.chatChunks else {
            throw BenchError("chat: \(tally.received) of \(options.chatChunks) stamped chunks arrived")
        }
        let latency = Latency(states.flatMap(\.latencies))
        note("chat: \(options.chatChunks) chunks (a delta every \(options.chatIntervalMs) ms): p50 \(fmt(latency.p50)) p99 \(fmt(latency.p99)) max \(fmt(latency.max)) ms")
        return latency
    }

    // MARK: Helpers

    /// The runs' ids (a hash of the canonical file path), once the server lists them.
    func findSessions(port: Int, live: String, resume: String) async throws -> (String, String) {
        func id(_ path: String) -> String {
            RunID.make(forPath: URL(fileURLWithPath: path).resolvingSymlinksInPath().path)
        }
        let ids = (id(live), id(resume))
        let found = await waitUntil(timeout: 30, poll: 0.1) {
            guard let http = try? BlockingHTTP(port: port), let response = try? http.request(method: "GET", path: "/api/sessions"),
                let list = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]
            else { return false }
            let listed = Set(list.compactMap { $0["id"] as? String })
            return listed.contains(ids.0) && listed.contains(ids.1)
        }
        guard found else { throw BenchError("the server did not list both bench runs (\(ids.0), \(ids.1)) within 30 s") }
        return ids
    }
}

/// The run's `event_count` in `GET /api/sessions`.
func eventCount(port: Int, session: String) throws -> Int {
    let http = try BlockingHTTP(port: port)
    let response = try http.request(method: "GET", path: "/api/sessions")
    let list = try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]
    return (list?.first { ($0["id"] as? String) == session }?["event_count"] as? Int) ?? 0
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

    mutating func add(_ name: String, _ value: Double, unit: String, target: Double?, higherIsBetter: Bool) {
        if let i = figures.firstIndex(where: { $0.name == name }) {
            figures[i].values.append(value)
        } else {
            figures.append(Figure(name: name, unit: unit, target: target, higherIsBetter: higherIsBetter, values: [value]))
        }
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
    var events = 1000
    var warmupEvents = 20
    /// Shortest pause between two published events in the latency figures.
    var intervalMs = 5.0
    /// Deliveries per second offered in the latency figures (the pause grows with the client count, so latency is
    /// measured below saturation; saturation has its own figure).
    var latencyLoad = 50_000.0
    var chatChunks = 1000
    var chatIntervalMs = 5
    var saturationClients = 1000
    var saturationEvents = 1000
    var resumeEvents = 10_000
    var idleConnections = 2000
    var clientThreads = 2
    var install = false

    static let usage = """
        usage: ralph-mobile-bench [--server PATH] [--runs N] [--clients 1,100,1000] [--events N] [--interval-ms MS]
                                  [--latency-load DELIVERIES_PER_S] [--chat-chunks N] [--chat-interval-ms MS]
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
            case "--latency-load":
                guard let load = Double(try value(flag)), load > 0 else { throw BenchError("--latency-load needs a positive number") }
                latencyLoad = load
            case "--chat-chunks": chatChunks = try int(flag)
            case "--chat-interval-ms": chatIntervalMs = try int(flag)
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
