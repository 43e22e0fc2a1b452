import Foundation
import RalphAPI
import RalphMobileKit
import RalphMobileServer
import TestSupport

/// A real cluster for the client tests: two servers in this process, `alpha` and `bravo`, each with a workspace and a
/// data directory of its own, on one PostgreSQL database (a fresh database of the shared private cluster,
/// ``PostgresServer``). Runs are played by `fake-ralph`, started through each host's API.
///
/// ``stopBravo()`` stops bravo gracefully: it says so in the database, so alpha shows it offline at once (its runs
/// `unreachable`). Its fake-ralph processes outlive it, as ralph outlives its server; ``stop()`` kills every run this
/// cluster started.
public final class ClientTestCluster: Sendable {
    public let tmp: TemporaryDirectory
    public let url: String
    public let alpha: LiveServer
    public let bravo: LiveServer
    private let pids = Locked<[Int]>([])
    private let bravoStopped = Locked(false)

    private init(tmp: TemporaryDirectory, url: String, alpha: LiveServer, bravo: LiveServer) {
        self.tmp = tmp
        self.url = url
        self.alpha = alpha
        self.bravo = bravo
    }

    /// Starts alpha, then bravo, on a new database; returns once alpha sees both hosts online.
    public static func start(_ name: String = "rm-client-cluster") async throws -> ClientTestCluster {
        let tmp = TemporaryDirectory(name)
        let url = try await PostgresServer.shared().makeDatabase()
        let alpha = try await host(tmp, url: url, name: "alpha")
        let bravo = try await host(tmp, url: url, name: "bravo")
        let cluster = ClientTestCluster(tmp: tmp, url: url, alpha: alpha, bravo: bravo)
        let client = try cluster.client(alpha)
        try await eventually(10, "alpha to see both hosts online") {
            let list = try await client.hosts()
            return list.hosts.count == 2 && list.hosts.allSatisfy(\.online)
        }
        return cluster
    }

    /// A host in this process, with its workspace at `<tmp>/ws-<name>`.
    static func host(_ tmp: TemporaryDirectory, url: String, name: String) async throws -> LiveServer {
        try await LiveServer.start(workspaces: [tmp.subdirectory("ws-" + name)], dataDirectory: tmp.subdirectory("data-" + name)) {
            $0.databaseURL = url
            $0.hostName = name
            $0.ralphCommand = Products.fakeRalph
            $0.stopGrace = 3
        }
    }

    /// A client of a host.
    public func client(_ host: LiveServer) throws -> RalphClient { try RalphClient(baseURL: host.base) }

    /// Starts fake-ralph on `host` in `<its workspace>/<project>` (a long, slow run by default) and returns its id once
    /// it is live, on its host and in alpha's list. Its process is killed by ``stop()``.
    public func startRun(on host: LiveServer, project: String = "proj", behaviour: String = "iterations: 400\npace: 0.3", prompt: String = "Do it")
        async throws -> String
    {
        let name = host === alpha ? "alpha" : "bravo"
        let config = "fake_ralph:\n" + behaviour.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n"
        let path = tmp.path + "/ws-\(name)/\(project)/ralph.yml"
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        let client = try client(host)
        let started = try await client.start(StartSessionRequest(configPath: "ralph.yml", prompt: prompt, workingDir: project))
        let found = Locked<Session?>(nil)
        try await eventually(15, "fake-ralph's run on \(name) to be live") {
            let session = try await client.status(started.id)
            found.withLock { $0 = session }
            return session.mode == .live && session.pid != nil
        }
        guard let session = found.value, let pid = session.pid else { throw TestFailure("no live run on \(name)") }
        pids.withLock { $0.append(pid) }
        // The other hosts may list a run its host has just made as it was before its loop was seen alive: wait until
        // alpha lists it live too.
        let alpha = try self.client(alpha)
        try await eventually(15, "alpha to list \(name)'s run live") { try await alpha.sessions().contains { $0.id == session.id && $0.mode == .live } }
        return session.id
    }

    /// Stops bravo (gracefully, as SIGTERM would): alpha shows it offline at once.
    public func stopBravo() async {
        let first = bravoStopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first { await bravo.stop() }
    }

    /// Kills every run started here and stops both hosts.
    public func stop() async {
        for pid in pids.value { kill(pid_t(pid), SIGKILL) }
        await stopBravo()
        await alpha.stop()
    }
}
