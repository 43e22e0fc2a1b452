import Foundation
import Logging
import RalphAPI
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's end of ralph's RPC mode for one run it started: commands written to ralph's stdin, events read from
/// its stdout on a thread of the channel's own (a blocking read, like the reaper's `waitpid`; no task to own).
///
/// Events become ``RpcTelemetry``; every event line also goes to the run's log, `text_delta` as the text it carries,
/// so the log stays readable. Commands with an `id` are answered by ralph's `response`; a steer or guidance is
/// answered when its `guidance_ack` comes.
public final class RpcChannel: Sendable {
    /// How a command ended.
    public enum Outcome: Sendable, Equatable {
        /// ralph acknowledged it (`guidance_ack`).
        case acknowledged(RpcAck)
        /// ralph answered `success: true` (commands that are not acknowledged).
        case accepted
        /// ralph answered `success: false`, or the channel ended first.
        case refused(String)
    }

    struct Waiter {
        var continuation: CheckedContinuation<Outcome?, Never>
        /// `current`/`next`: the acknowledgement that answers it; nil: the response does.
        var ack: String?
        var message: String
    }

    struct State {
        var telemetry = RpcTelemetry()
        var nextID = 0
        var waiters: [Int: Waiter] = [:]
        var inputOpen = true
    }

    private let input: Int32
    private let output: Int32
    private let logFile: String
    private let logger: Logger
    private let onChange: @Sendable () -> Void
    private let state = Mutex(State())

    /// Takes ownership of both descriptors and starts reading; `onChange` runs on the reader thread after each event
    /// that changed the telemetry (it must be quick).
    public init(input: Int32, output: Int32, logFile: String, logger: Logger, onChange: @escaping @Sendable () -> Void) {
        // A command to a ralph that went away must fail as EPIPE, not end the server.
        signal(SIGPIPE, SIG_IGN)
        self.input = input
        self.output = output
        self.logFile = logFile
        self.logger = logger
        self.onChange = onChange
        let thread = Thread { [self] in readEvents() }
        thread.name = "ralph-mobile.rpc.\(output)"
        thread.start()
    }

    public var telemetry: RpcTelemetry { state.withLock { $0.telemetry } }

    /// Sends `type` with `fields` and waits up to `timeout` for its outcome; nil when none came in time (the command
    /// was sent). Throws when it could not be sent.
    public func send(_ type: String, _ fields: [String: String] = [:], acknowledgedAs ack: String? = nil, timeout: Duration) async throws(RunSupervisor.ControlError) -> Outcome? {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        // ralph's commands take `id` as a string (`Option<String>` in ralph-proto's json_rpc.rs): a number would make
        // the whole line unparseable, answered by a `parse` response that names no command.
        var command = JSONObject([("type", .string(type)), ("id", .string(Self.commandID(id)))])
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) { command[key] = .string(value) }
        let line: Data
        do {
            line = try WireJSON.encode(JSONValue.object(command)) + Data([0x0A])
        } catch {
            throw .conflict("cannot encode the \(type) command: \(error)")
        }
        let message = fields["message"] ?? ""
        return await withDeadline(timeout) { [self] in
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Outcome?, Never>) in
                    let now = state.withLock { s -> Outcome?? in
                        if Task.isCancelled { return .some(nil) }
                        guard s.inputOpen else { return .some(.refused("ralph's RPC input is closed")) }
                        guard Self.writeAll(input, line) else {
                            s.inputOpen = false
                            return .some(.refused("ralph's RPC input is closed (\(String(cString: strerror(errno))))"))
                        }
                        s.waiters[id] = Waiter(continuation: continuation, ack: ack, message: message)
                        return .none
                    }
                    if let now { continuation.resume(returning: now) }
                }
            } onCancel: {
                // The deadline passed: the command was sent, its outcome is no longer awaited.
                let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.continuation.resume(returning: nil)
            }
        }
    }

    private static func writeAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var written = 0
            while written < raw.count {
                let n = write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                written += n
            }
            return true
        }
    }

    // MARK: - Events

    private func readEvents() {
        let log = open(logFile, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        if log < 0 { logger.error("cannot open \(logFile) for ralph's RPC output: \(String(cString: strerror(errno)))") }
        defer {
            if log >= 0 { close(log) }
            close(output)
            ended()
        }
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            pending.append(contentsOf: buffer[0..<n])
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                handle(line, log: log)
            }
        }
    }

    private func handle(_ line: [UInt8], log: Int32) {
        guard !line.isEmpty else { return }
        let event: JSONObject?
        do {
            event = try WireJSON.decode(JSONValue.self, from: Data(line)).objectValue
        } catch {
            event = nil
        }
        guard let event, event["type"]?.stringValue != nil else {
            // Not an event (ralph printed something else): kept in the log as it came.
            if log >= 0 { _ = Self.writeAll(log, Data(line + [0x0A])) }
            return
        }
        if log >= 0 {
            if event["type"]?.stringValue == "text_delta" {
                _ = Self.writeAll(log, Data((event["delta"]?.stringValue ?? "").utf8))
            } else {
                _ = Self.writeAll(log, Data(line + [0x0A]))
            }
        }
        let now = Timestamp.now()
        let (changed, answered) = state.withLock { s -> (Bool, [(CheckedContinuation<Outcome?, Never>, Outcome)]) in
            let changed = s.telemetry.apply(event, now: now)
            return (changed, Self.answers(to: event, acks: s.telemetry.acks, waiters: &s.waiters))
        }
        answered.forEach { $0.0.resume(returning: $0.1) }
        if changed { onChange() }
    }

    /// The waiters `event` answers, removed from `waiters`.
    private static func answers(to event: JSONObject, acks: [RpcAck], waiters: inout [Int: Waiter]) -> [(CheckedContinuation<Outcome?, Never>, Outcome)] {
        switch event["type"]?.stringValue {
        case "guidance_ack":
            guard let ack = acks.last else { return [] }
            // The oldest command waiting for this kind of acknowledgement of this text.
            guard let id = waiters.filter({ $0.value.ack == ack.appliesTo && $0.value.message == ack.message }).keys.min() else { return [] }
            return [(waiters.removeValue(forKey: id)!.continuation, .acknowledged(ack))]
        case "response":
            guard let id = event["id"]?.stringValue.flatMap(Self.waiterID), let waiter = waiters[id] else { return [] }
            if event["success"]?.boolValue == false {
                waiters[id] = nil
                return [(waiter.continuation, .refused(event["error"]?.stringValue ?? "ralph refused the command"))]
            }
            guard waiter.ack == nil else { return [] }
            waiters[id] = nil
            return [(waiter.continuation, .accepted)]
        default:
            return []
        }
    }

    /// The `id` a command is sent with (`rm-<n>`), and back.
    static func commandID(_ n: Int) -> String { "rm-\(n)" }
    static func waiterID(_ id: String) -> Int? { id.hasPrefix("rm-") ? Int(id.dropFirst(3)) : nil }

    /// ralph's output ended (it exited, or closed it): waiting commands are answered, and no more can be sent.
    private func ended() {
        let waiters = state.withLock { s -> [Waiter] in
            s.telemetry.connected = false
            s.telemetry.currentIteration = nil
            s.telemetry.toolCalls = []
            if s.inputOpen { close(input) }
            s.inputOpen = false
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        waiters.forEach { $0.continuation.resume(returning: .refused("ralph's RPC output ended before it answered")) }
        onChange()
    }
}
