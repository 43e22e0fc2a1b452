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
        if options.clusterOnly, let database = options.database {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: options.clientThreads)
            do {
                try await measureCluster(database: database, group: group)
            } catch {
                try? await group.shutdownGracefully()
                throw error
            }
            try? await group.shutdownGracefully()
            results.print()
            return
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
            nchan.child.stop()
            server.stop()
            if let database = options.database { try await measureCluster(database: database, group: group) }
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try? await group.shutdownGracefully()
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
                // Figure 8 times each question on its own: no folding of a burst into one message.
                "--notify-fold", "0",
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

        let ours = Target.ours(port: port, path: "/api/sessions/\(liveID)/events?history=0&end=close", fd: liveFD)
        let theirs = Target.nchan(port: nchan.port, path: "/sub", publisher: publisher)
        let conversation = try createConversation(port: port, cwd: workspaces.live)
        let receiver = try await WebhookReceiver.start(group: group)
        do {
            try registerWebhook(port: port, receiver: receiver)
            try await measureRuns(
                group: group, workspaces: workspaces, ours: ours, theirs: theirs, conversation: conversation, liveFD: liveFD, liveID: liveID,
                receiver: receiver, port: port, resumeID: resumeID, resumePhase: resumePhase)
        } catch {
            do { try await receiver.stop() } catch let closing { note("webhook receiver: \(closing)") }
            throw error
        }
        try await receiver.stop()
    }

    /// Every figure of the server, `options.runs` times.
    mutating func measureRuns(
        group: MultiThreadedEventLoopGroup, workspaces: Workspaces, ours: Target, theirs: Target, conversation: String, liveFD: Int32,
        liveID: String, receiver: WebhookReceiver, port: Int, resumeID: String, resumePhase: Int
    ) async throws {
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
                results.add("2. our p99 / nchan p99, \(clients) client\(clients == 1 ? "" : "s")", a.p99 / max(b.p99, 0.001), unit: "x", target: 1.0, higherIsBetter: false)
            }
            let rate = try await saturation(ours, clients: options.saturationClients, events: options.saturationEvents, group: group)
            results.add("3. deliveries/s at saturation, \(options.saturationClients) clients", rate, unit: "events/s", target: 400_000, higherIsBetter: true)
            let nchanRate = try await saturation(theirs, clients: options.saturationClients, events: options.saturationEvents, group: group)
            results.add("3. nginx+nchan deliveries/s at saturation, \(options.saturationClients) clients", nchanRate, unit: "events/s", target: nil, higherIsBetter: true)
            results.add("3. our saturation / nchan's", rate / max(nchanRate, 1), unit: "x", target: 1.0, higherIsBetter: true)
            let resumeMs = try await resumeTime(port: port, session: resumeID, phase: resumePhase, group: group)
            results.add("4. resume \(options.resumeEvents) events behind (Last-Event-ID)", resumeMs, unit: "ms", target: 200, higherIsBetter: false)
            let chat = try await chatLatency(port: port, conversation: conversation, group: group)
            results.add("7. chat: CLI double line → chunk p50", chat.p50, unit: "ms", target: nil, higherIsBetter: false)
            results.add("7. chat: CLI double line → chunk p99", chat.p99, unit: "ms", target: 5, higherIsBetter: false)
            results.add("7. chat: CLI double line → chunk max", chat.max, unit: "ms", target: nil, higherIsBetter: false)
            let notify = try await notifyLatency(port: port, fd: liveFD, liveID: liveID, receiver: receiver)
            results.add("8. notify: question event → webhook push p50", notify.latency.p50, unit: "ms", target: nil, higherIsBetter: false)
            results.add("8. notify: question event → webhook push p99", notify.latency.p99, unit: "ms", target: 50, higherIsBetter: false)
            results.add("8. notify: question event → webhook push max", notify.latency.max, unit: "ms", target: nil, higherIsBetter: false)
            results.add(
                "8. notify: questions told only in a burst message (of \(options.notifyEvents))", Double(notify.folded), unit: "questions", target: nil,
                higherIsBetter: false)
        }
    }
}
