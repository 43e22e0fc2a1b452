import Foundation
import NIOCore
import NIOPosix
import RalphAPI
import RalphFiles
import RalphSimulator

#if canImport(Glibc)
import Glibc
#endif

/// Figure 5: a fresh server's idle RSS and what each idle SSE stream or kept-alive connection adds to it.
extension Bench {
    /// `idleConnections` open SSE streams adds.
    func idleMemory(_ workspaces: Workspaces, run: Int, group: MultiThreadedEventLoopGroup) async throws -> (Int, Double) {
        let (server, port, liveID, _) = try await startServer(workspaces, name: "idle-\(run)")
        defer { server.stop() }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        guard let before = residentKB(pid: server.pid) else { throw BenchError("cannot read /proc/\(server.pid)/status") }
        let tally = Tally()
        let count = options.idleConnections
        let (_, channels) = try await openSSEClients(
            group: group, host: "127.0.0.1", port: port, path: "/api/sessions/\(liveID)/events?history=0&end=close", headers: [],
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
}
