import AgentRunner
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import RalphAPI
import SQLStore
import Synchronization

/// Requests for a run or conversation of another host, carried out by that host: the request goes into
/// `cluster_commands` with the caller's role, a notice wakes the owner, which claims it, runs it through its own router
/// (so every rule of every route applies there, and nothing more than the caller's role allows), stores the response
/// and says so. No host connects to another: hosts behind NAT work, as long as they reach the database.
///
/// An offline owner is `503 host_offline:` at once; one that goes offline or does not answer in time is said too,
/// never answered with a success of its own making.
final class ClusterCommands: Sendable {
    struct Result: Sendable {
        var status: Int
        var contentType: String?
        var body: [UInt8]
    }

    let database: any SQLDatabase
    let hosts: HostRegistry
    let logger: Logger
    /// How long a caller waits for the owner (longer than any route of it takes: a forced stop waits for its grace).
    let timeout: Duration
    private let waiters = Mutex<[Int64: CheckedContinuation<Void, Never>]>([:])
    /// This host's router, set once it is built: what carries out the commands sent to it.
    private let responder = Mutex<(@Sendable (Request, AppRequestContext) async throws -> Response)?>(nil)
    /// Commands being carried out here (so a notice and a resync do not run one twice in this process).
    private let running = Mutex<Set<Int64>>([])
    private let tasks = OwnedTasks()

    /// Headers a forwarded request keeps (never credentials: the caller's role goes with the command instead).
    static let keptHeaders: [HTTPField.Name] = [.contentType, .accept, HTTPField.Name("Ralph-Stream-End")!]

    init(database: any SQLDatabase, hosts: HostRegistry, logger: Logger, timeout: Duration = .seconds(60)) {
        self.database = database
        self.hosts = hosts
        self.logger = logger
        self.timeout = timeout
    }

    func attach(_ respond: @escaping @Sendable (Request, AppRequestContext) async throws -> Response) {
        responder.withLock { $0 = respond }
    }

    // MARK: - Sending

    /// Carries `request` out on host `host` as `identity`, and answers with what it answered.
    func forward(_ request: Request, to host: String, identity: CallerIdentity?) async throws -> Response {
        let name = hosts.host(host)?.name ?? host
        guard hosts.isOnline(host) else {
            throw APIError.hostOffline("host \(name) is offline: its runs and conversations cannot be reached until it is back")
        }
        let body = try await request.body.collect(upTo: 8 << 20)
        var kept: [String: String] = [:]
        for field in Self.keptHeaders { if let value = request.headers[field] { kept[field.rawName] = value } }
        let headers = String(decoding: try WireJSON.encode(kept), as: UTF8.self)
        let uri = request.uri.description
        let id = try await database.write { db in
            let row = try await db.first(
                """
                INSERT INTO cluster_commands (host_id, method, uri, headers, body, role, key_id, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, EXTRACT(EPOCH FROM clock_timestamp())::double precision) RETURNING id
                """,
                arguments: [host, request.method.rawValue, uri, headers, Array(body.readableBytesView), identity?.role.rawValue ?? Role.viewer.rawValue,
                    identity?.keyID])
            let id = Int64(try row?.int("id") ?? 0)
            try await db.execute("SELECT pg_notify(?, ?)", ClusterNotice.channel, ClusterNotice.command(host: host, id: id).payload)
            return id
        }
        guard let result = try await wait(for: id, host: host) else {
            let state = hosts.isOnline(host) ? "did not answer within \(timeout)" : "went offline"
            let what = "\(request.method.rawValue) \(request.uri.path)"
            // Withdrawn unless the owner claimed it already: then whether it was done cannot be known from here.
            let withdrawn = try? await database.write { db in try await db.first("DELETE FROM cluster_commands WHERE id = ? AND claimed_at IS NULL RETURNING id", id) }
            if withdrawn != nil {
                throw APIError.hostOffline("host \(name) \(state) before carrying out \(what); it was not done")
            }
            throw APIError.hostOffline("host \(name) \(state) while carrying out \(what); it may or may not have been done")
        }
        // The caller has its answer: the command is not kept.
        _ = try? await database.write { db in try await db.execute("DELETE FROM cluster_commands WHERE id = ?", id) }
        var response = Response(status: HTTPResponse.Status(code: result.status), body: .init(byteBuffer: ByteBuffer(bytes: result.body)))
        if let type = result.contentType { response.headers[.contentType] = type }
        return response
    }

    /// The result of command `id`, once stored; nil when the owner went offline or the wait timed out.
    private func wait(for id: Int64, host: String) async throws -> Result? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let result = try await storedResult(id) { return result }
            guard hosts.isOnline(host) else { return nil }
            // Woken by the result's notice, or after a second to look again (a notice missed while reconnecting).
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiters.withLock { $0[id] = continuation }
                _ = tasks.spawn { [self] in
                    try? await Task.sleep(for: .seconds(1))
                    resumeWaiter(id)
                }
            }
        }
        return try await storedResult(id)
    }

    private func storedResult(_ id: Int64) async throws -> Result? {
        guard let row = try await database.first("SELECT status, response, response_headers FROM cluster_commands WHERE id = ?", [id]),
            let status = try row.optionalInt("status")
        else { return nil }
        let headers = try row.optionalString("response_headers").flatMap { try? WireJSON.decode([String: String].self, from: Data($0.utf8)) }
        return Result(status: status, contentType: headers?["Content-Type"], body: (try? row.bytes("response")) ?? [])
    }

    private func resumeWaiter(_ id: Int64) {
        let waiter = waiters.withLock { $0.removeValue(forKey: id) }
        waiter?.resume()
    }

    /// A result's notice.
    func resultArrived(_ id: Int64) { resumeWaiter(id) }

    /// After the listener reconnected: every waiting caller looks again.
    func resync() {
        let ids = waiters.withLock { Array($0.keys) }
        for id in ids { resumeWaiter(id) }
        _ = tasks.spawn { [self] in await claimWaiting() }
    }

    /// A command waiting longer than its caller waits is never carried out (the caller gave up, or is gone).
    private var maxAge: Double { Double(timeout.components.seconds) }

    /// Forgets commands whose caller never came back for the answer (it stopped while waiting), after an hour.
    func prune() async {
        do {
            try await database.write { db in
                try await db.execute("DELETE FROM cluster_commands WHERE created_at < EXTRACT(EPOCH FROM clock_timestamp())::double precision - 3600")
            }
        } catch {
            logger.debug("cluster: cannot prune old commands: \(error)")
        }
    }

    // MARK: - Carrying out

    /// A command's notice: carried out here if it is for this host.
    func commandArrived(_ id: Int64, host: String) {
        guard host == hosts.id else { return }
        _ = tasks.spawn { [self] in await carryOut(id) }
    }

    /// Every command waiting for this host (some may have been sent while it was not listening).
    func claimWaiting() async {
        let ids = (try? await database.query("SELECT id FROM cluster_commands WHERE host_id = ? AND claimed_at IS NULL ORDER BY id", [hosts.id])) ?? []
        for row in ids {
            if let id = try? row.int("id") { await carryOut(Int64(id)) }
        }
    }

    private func carryOut(_ id: Int64) async {
        guard running.withLock({ $0.insert(id).inserted }) else { return }
        defer { _ = running.withLock { $0.remove(id) } }
        do {
            let claimed = try await database.write { db in
                try await db.first(
                    """
                    UPDATE cluster_commands SET claimed_at = EXTRACT(EPOCH FROM clock_timestamp())::double precision
                    WHERE id = ? AND host_id = ? AND claimed_at IS NULL
                        AND created_at > EXTRACT(EPOCH FROM clock_timestamp())::double precision - ?
                    RETURNING method, uri, headers, body, role, key_id
                    """, id, hosts.id, maxAge)
            }
            guard let claimed else { return }
            let result = await execute(claimed)
            let headers = result.contentType.map { String(decoding: (try? WireJSON.encode(["Content-Type": $0])) ?? Data(), as: UTF8.self) }
            try await database.write { db in
                try await db.execute(
                    """
                    UPDATE cluster_commands SET status = ?, response = ?, response_headers = ?,
                        done_at = EXTRACT(EPOCH FROM clock_timestamp())::double precision WHERE id = ?
                    """, arguments: [result.status, result.body, headers, id])
                try await db.execute("SELECT pg_notify(?, ?)", ClusterNotice.channel, ClusterNotice.result(id).payload)
            }
        } catch {
            logger.warning("cluster: command \(id) could not be carried out or answered: \(error)")
        }
    }

    /// Runs a claimed command through this host's router, as the caller's role.
    private func execute(_ row: SQLRow) async -> Result {
        guard let respond = responder.withLock({ $0 }) else {
            return Result(status: 503, contentType: "application/json", body: Array(#"{"error":"unavailable: this host is starting"}"#.utf8))
        }
        do {
            let method = HTTPRequest.Method(try row.string("method")) ?? .get
            let headers = (try? WireJSON.decode([String: String].self, from: Data(try row.string("headers").utf8))) ?? [:]
            var fields = HTTPFields()
            for (name, value) in headers { if let field = HTTPField.Name(name) { fields[field] = value } }
            let head = HTTPRequest(method: method, scheme: "http", authority: "localhost", path: try row.string("uri"), headerFields: fields)
            let request = Request(head: head, body: .init(buffer: ByteBuffer(bytes: try row.bytes("body"))))
            let role = Role(rawValue: try row.string("role")) ?? .viewer
            var context = AppRequestContext(source: ApplicationRequestContextSource(channel: EmbeddedChannel(), logger: logger))
            context.identity = CallerIdentity(role: role, keyID: try row.optionalString("key_id"))
            let response = try await respond(request, context)
            return Result(status: response.status.code, contentType: response.headers[.contentType], body: try await CollectingBodyWriter.bytes(of: response))
        } catch let error as APIError {
            return Result(status: error.status.code, contentType: "application/json", body: Array(error.responseBody()))
        } catch {
            return Result(status: 500, contentType: "application/json", body: Array(APIError.internalError("\(error)").responseBody()))
        }
    }

    func shutdown() async {
        let all = waiters.withLock { waiters -> [CheckedContinuation<Void, Never>] in
            defer { waiters = [:] }
            return Array(waiters.values)
        }
        for waiter in all { waiter.resume() }
        await tasks.shutdown()
    }
}

/// Collects a response body (a command's response goes into the database whole).
struct CollectingBodyWriter: ResponseBodyWriter {
    final class Collected: Sendable {
        private let buffer = Mutex<[UInt8]>([])
        var bytes: [UInt8] { buffer.withLock { $0 } }
        func append(_ bytes: ByteBuffer) { buffer.withLock { $0 += bytes.readableBytesView } }
    }

    let collected: Collected

    /// A whole response body.
    static func bytes(of response: Response) async throws -> [UInt8] {
        let collected = Collected()
        try await response.body.write(CollectingBodyWriter(collected: collected))
        return collected.bytes
    }

    mutating func write(_ buffer: ByteBuffer) async throws { collected.append(buffer) }
    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
