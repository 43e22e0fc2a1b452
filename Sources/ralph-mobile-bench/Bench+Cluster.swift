import Foundation
import NIOCore
import NIOPosix
import RalphAPI
import RalphFiles
import RalphSimulator

#if canImport(Glibc)
import Glibc
#endif

/// Figure 9: two servers sharing one PostgreSQL database (`--database`). An event appended to a run of host A reaches
/// SSE clients connected to host B through the database (A copies it into `cluster_events`, NOTIFY wakes B, B reads
/// it); side by side, the same clients connected to A itself (the single-host path) in the same setup.
extension Bench {
    struct ClusterHosts {
        var a: Child
        var b: Child
        var portA: Int
        var portB: Int
        var runID: String
        var fd: Int32
        /// Holds the run's lock: the run is live while it exists.
        var writer: RalphRunWriter
    }

    /// Starts hosts alpha (one live run, held by this process) and bravo (an empty workspace) on `database`.
    func startCluster(database: String) async throws -> ClusterHosts {
        let workspaceA = root + "/cluster-a", workspaceB = root + "/cluster-b"
        try FileManager.default.createDirectory(atPath: workspaceB, withIntermediateDirectories: true)
        let run = try RalphRunWriter(workspace: workspaceA)
        try run.begin(prompt: "bench cluster run")
        func host(_ name: String, _ workspace: String) throws -> (Child, Int) {
            let child = Child(
                name: "ralph-mobile-server (\(name))", executable: options.server,
                arguments: [
                    "--port", "0", "--workspace", workspace, "--data-dir", root + "/cluster-data-" + name, "--database", database, "--host-name", name,
                ],
                directory: root)
            try child.start()
            let port = Int(try child.waitFor(pattern: "listening on http://127\\.0\\.0\\.1:([0-9]+)", timeout: 60))!
            return (child, port)
        }
        let (a, portA) = try host("alpha", workspaceA)
        let (b, portB) = try host("bravo", workspaceB)
        // A's run, once B lists it as live (A has published its summary into the database; a run file seen before
        // `current-events` names it is not live yet, and a stream of it would end at once).
        var runID: String?
        let listed = await waitUntil(timeout: 30, poll: 0.1) {
            guard let http = try? BlockingHTTP(port: portB), let response = try? http.request(method: "GET", path: "/api/sessions?host=alpha"),
                let list = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]], let id = list.first?["id"] as? String,
                list.first?["mode"] as? String == "live"
            else { return false }
            runID = id
            return true
        }
        guard listed, let runID else { throw BenchError("bravo did not list alpha's run as live within 30 s:\n\(a.log.suffix(1000))\n\(b.log.suffix(1000))") }
        let fd = open(run.eventsFile, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw BenchError("cannot open \(run.eventsFile)") }
        note("cluster: alpha pid \(a.pid) port \(portA), bravo pid \(b.pid) port \(portB), run \(runID)")
        return ClusterHosts(a: a, b: b, portA: portA, portB: portB, runID: runID, fd: fd, writer: run)
    }

    /// Figure 9, `options.runs` times: append on A → SSE on B against append on A → SSE on A, and events per second
    /// through the database (a burst appended on A, until one client on B has every event) against A's own.
    mutating func measureCluster(database: String, group: MultiThreadedEventLoopGroup) async throws {
        let hosts = try await startCluster(database: database)
        defer {
            _ = withExtendedLifetime(hosts.writer) { close(hosts.fd) }
            hosts.b.stop()
            hosts.a.stop()
        }
        let path = "/api/sessions/\(hosts.runID)/events?history=0&end=close"
        let remote = Target.ours(port: hosts.portB, path: path, fd: hosts.fd)
        let local = Target.ours(port: hosts.portA, path: path, fd: hosts.fd)
        do {
            try await measureCluster(hosts, remote: remote, local: local, group: group)
        } catch {
            throw BenchError("\(error)\nalpha's log:\n\(hosts.a.log.suffix(3000))\nbravo's log:\n\(hosts.b.log.suffix(3000))")
        }
    }

    private mutating func measureCluster(_ hosts: ClusterHosts, remote: Target, local: Target, group: MultiThreadedEventLoopGroup) async throws {
        let clients = options.clusterClients
        let plural = clients == 1 ? "" : "s"
        for run in 1...options.runs {
            note("cluster run \(run)/\(options.runs)")
            let interval = max(options.intervalMs, Double(clients) / options.latencyLoad * 1000)
            let b = try await latency(remote, clients: clients, intervalMs: interval, group: group)
            let a = try await latency(local, clients: clients, intervalMs: interval, group: group)
            note("cluster, \(clients) clients: A → B p50 \(fmt(b.p50)) p99 \(fmt(b.p99)) max \(fmt(b.max)) ms; A → A p50 \(fmt(a.p50)) p99 \(fmt(a.p99)) ms")
            results.add("9. cluster: append on A → SSE on B p50, \(clients) client\(plural)", b.p50, unit: "ms", target: nil, higherIsBetter: false)
            results.add("9. cluster: append on A → SSE on B p99, \(clients) client\(plural)", b.p99, unit: "ms", target: 20, higherIsBetter: false)
            results.add("9. cluster: append on A → SSE on B max, \(clients) client\(plural)", b.max, unit: "ms", target: nil, higherIsBetter: false)
            results.add("9. same setup, single host: append on A → SSE on A p50, \(clients) client\(plural)", a.p50, unit: "ms", target: nil, higherIsBetter: false)
            results.add("9. same setup, single host: append on A → SSE on A p99, \(clients) client\(plural)", a.p99, unit: "ms", target: nil, higherIsBetter: false)
            let throughB = try await saturation(remote, clients: 1, events: options.clusterEvents, group: group)
            let onA = try await saturation(local, clients: 1, events: options.clusterEvents, group: group)
            results.add("9. cluster: events/s through the database (burst of \(options.clusterEvents) on A → 1 client on B)", throughB, unit: "events/s", target: nil, higherIsBetter: true)
            results.add("9. same setup, single host: events/s (burst on A → 1 client on A)", onA, unit: "events/s", target: nil, higherIsBetter: true)
        }
    }
}
