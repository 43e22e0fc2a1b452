import AgentRunner
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import RalphAPI
import RalphFiles
import ServiceLifecycle
import Synchronization

/// Controls that act on ralph for real: start and stop (admin); pause, resume, emit and steer (operator); and the
/// output log of runs started here.
struct SteeringRoutes {
    let catalog: RunCatalog
    let roots: WorkspaceRoots
    let lookup: SessionLookup
    let events: EventWriter
    /// `--experimental-urgent-steer`: an urgent steer of a discovered run may write `.ralph/urgent-steer.json`.
    var experimentalUrgentSteer = false

    var supervisor: RunSupervisor { lookup.supervisor }

    func register(on routes: Routes) {
        routes.admin.post("/api/sessions") { request, context in try await start(request, context) }
        routes.admin.delete("/api/sessions/{id}") { request, context in try await stop(request, context) }
        routes.operator.post("/api/sessions/{id}/pause") { _, context in try await pause(context) }
        routes.operator.post("/api/sessions/{id}/resume") { _, context in try await resume(context) }
        routes.operator.post("/api/sessions/{id}/emit") { request, context in try await emit(request, context) }
        routes.operator.post("/api/sessions/{id}/steer") { request, context in try await steerNowOrNext(request, context) }
        routes.viewer.get("/api/sessions/{id}/log") { request, context in try await log(request, context) }
    }

    // MARK: - Start

    func start(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let body = try await request.decode(as: StartSessionRequest.self, context: context)
        var plan = try await NIOThreadPool.singleton.runIfActive { try StartRequestValidator(roots: roots).plan(for: body) }
        plan.requestID = context.requestID
        let outcome: RunSupervisor.StartOutcome
        do {
            outcome = try await supervisor.start(plan)
        } catch {
            throw APIError.failedToSpawn(error.description)
        }
        var response = JSONResponse.make(
            StartSessionResponse(id: outcome.id, status: "starting", pending: outcome.pending, pid: outcome.pid, log: "/api/sessions/\(outcome.id)/log"),
            status: .created
        )
        response.headers[.location] = "/api/sessions/\(outcome.id)"
        return response
    }

    // MARK: - Stop, pause, resume

    /// Graceful by default (ralph's `.ralph/stop-requested`; answers `200 {"status":"stopping"}` at once); forced
    /// with `?force=true`, a `{"force": true}` body, or a second stop while a graceful one is pending.
    func stop(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let force = try await StopForce.read(request, context: context)
        let id: String
        switch try await lookup.target(context.parameters.get("id") ?? "") {
        case .run(let snapshot): id = snapshot.id
        case .pending(let started): id = started.pendingID
        }
        do {
            switch try await supervisor.requestStop(sessionID: id, force: force) {
            case .stopping(let request, let pid):
                return JSONResponse.make(
                    StopSessionResponse(
                        status: "stopping", signal: nil, pid: pid, terminated: false, kind: request.kind, message: StopSessionResponse.gracefulMessage
                    )
                )
            case .stopped(let request, let outcome):
                return JSONResponse.make(
                    StopSessionResponse(status: "stopped", signal: outcome.signal, pid: outcome.pid, terminated: outcome.terminated, kind: request.kind)
                )
            }
        } catch {
            throw APIError(error)
        }
    }

    func pause(_ context: AppRequestContext) async throws -> Response {
        try await control(context, answer: "paused") { try await supervisor.pause(sessionID: $0) }
    }

    /// SIGCONT for a run this server paused (`resumed`); `.ralph/resume-requested` for a loop a hook suspended
    /// (`resume_requested`); `409` with words for a run that is neither.
    func resume(_ context: AppRequestContext) async throws -> Response {
        let snapshot = try await lookup.run(context.parameters.get("id") ?? "")
        let answer = supervisor.resumeKind(sessionID: snapshot.id) == "resume_requested" ? "resume_requested" : "resumed"
        return try await control(context, answer: answer) { try await supervisor.resume(sessionID: $0) }
    }

    /// Pause and resume: a run (not a pending one), the supervisor's errors mapped.
    private func control(_ context: AppRequestContext, answer: String, _ action: (String) async throws -> Int) async throws -> Response {
        let snapshot = try await lookup.run(context.parameters.get("id") ?? "")
        do {
            return JSONResponse.make(ControlResponse(status: answer, pid: try await action(snapshot.id)))
        } catch {
            throw APIError(error)
        }
    }

    // MARK: - Emit and steer

    func emit(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let body = try await request.decode(as: EmitRequest.self, context: context)
        if let problem = Topic.problem(with: body.topic) { throw APIError.invalidTopic(problem) }
        let snapshot = try await lookup.run(context.parameters.get("id") ?? "")
        // The original app's signal buttons do what they say first (SteeringRoutes+Signals.swift).
        let done = Self.signalTopics.contains(body.topic)
            ? try await carryOutSignal(body.topic, payload: body.payload, snapshot: snapshot, context: context) : nil
        let date = Date()
        let id = try await events.append(topic: body.topic, payload: body.payload ?? .null, to: snapshot, at: date)
        return JSONResponse.make(EmitResponse(success: true, topic: body.topic, timestamp: Timestamp.format(date), id: id.description, done: done))
    }

    // MARK: - Log

    /// ralph's output for a run started here: what is there, then (with `follow`, the default) what comes, until the
    /// process ends. `?offset=` resumes at a byte offset; a log that was truncated starts over.
    func log(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let raw = context.parameters.get("id") ?? ""
        let started: RunSupervisor.StartedRun
        switch try await lookup.target(raw) {
        case .run(let snapshot):
            guard let run = supervisor.startedRun(matching: snapshot.id) else {
                throw APIError.notFound("session \(snapshot.id) was not started by this server, so it has no output log here")
            }
            started = run
        case .pending(let run):
            started = run
        }
        let query = request.uri.queryParameters
        let follow = query["follow"].map { $0 != "false" && $0 != "0" } ?? true
        let offset = try query["offset"].map { text throws(APIError) -> Int in
            guard let value = Int(text), value >= 0 else { throw .invalidParameter("offset must be a non-negative integer") }
            return value
        } ?? 0
        let supervisor = self.supervisor
        let logger = context.logger
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-cache", .xAccelBuffering: "no"]
        if follow { headers[.connection] = "close" }
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                let shuttingDown = ShutdownFlag()
                do {
                    try await request.body.consumeWithCancellationOnInboundClose { _ in
                        try await withGracefulShutdownHandler {
                            try await Self.streamLog(started, from: offset, follow: follow, supervisor: supervisor, stop: shuttingDown, writer: &writer)
                        } onGracefulShutdown: {
                            shuttingDown.set()
                        }
                    }
                    try await writer.finish(nil)
                } catch {
                    // The status line is out: all that can be done is end the body and say why in the log.
                    StreamStop.log(error, what: "output log of \(started.pendingID)", logger: logger)
                }
            }
        )
    }

    static func streamLog(
        _ run: RunSupervisor.StartedRun, from start: Int, follow: Bool, supervisor: RunSupervisor, stop: ShutdownFlag,
        writer: inout any ResponseBodyWriter
    ) async throws {
        var offset = start
        while true {
            // Decide whether this is the last read *before* reading: output written just before the process exited
            // must still be delivered.
            let last = !follow || stop.isSet || supervisor.startedRun(matching: run.pendingID).map { !supervisor.isProducingOutput($0) } ?? true
            let current = offset
            let chunk = try await NIOThreadPool.singleton.runIfActive { LogFile.read(run.log, from: current, max: 256 * 1024) }
            if chunk.truncated { offset = 0 }
            if !chunk.bytes.isEmpty {
                offset = chunk.offset + chunk.bytes.count
                try await writer.write(ByteBuffer(bytes: chunk.bytes))
                continue
            }
            if last { return }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}

/// Set once the server begins a graceful shutdown, so long-running responses end.
final class ShutdownFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// Reads a slice of a log file. Blocking.
enum LogFile {
    struct Chunk {
        var bytes: [UInt8]
        var offset: Int
        /// The file is shorter than the requested offset: it was truncated; reading restarts at 0.
        var truncated: Bool
    }

    static func read(_ path: String, from offset: Int, max: Int) -> Chunk {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0, let status = FileSystem.status(fd: fd) else { return Chunk(bytes: [], offset: offset, truncated: false) }
        defer { close(fd) }
        let start = status.size < offset ? 0 : offset
        let count = Swift.min(max, status.size - start)
        guard count > 0 else { return Chunk(bytes: [], offset: start, truncated: start != offset) }
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { FileSystem.pread(fd: fd, into: $0, offset: start) }
        return Chunk(bytes: Array(bytes.prefix(Swift.max(0, n))), offset: start, truncated: start != offset)
    }
}

extension APIError {
    /// Maps the supervisor's errors to the contract's.
    init(_ error: any Error) {
        switch error {
        case let error as APIError: self = error
        case let error as RunSupervisor.ControlError:
            switch error {
            case .notRunning(let detail): self = .notRunning(detail)
            case .conflict(let detail): self = .conflict(detail)
            case .forbidden(let detail): self = .forbiddenAction(detail)
            case .spawnFailed(let detail): self = .failedToSpawn(detail)
            }
        default: self = .internalError("\(error)")
        }
    }
}
