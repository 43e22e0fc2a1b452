import Foundation
import RalphAPI
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// stdout. Every line is written with a single `write` (no stdio buffering), and lines from the turn thread and the
/// stdin reader thread never interleave.
final class Output: Sendable {
    let format: Options.OutputFormat
    /// Pause before each line of a turn, so streaming is observable (`FAKE_CLAUDE_DELAY_MS`).
    let delayMicroseconds: UInt32
    private let lock = Mutex(())

    init(format: Options.OutputFormat, delayMilliseconds: Int) {
        self.format = format
        delayMicroseconds = UInt32(clamping: max(0, delayMilliseconds) * 1000)
    }

    /// Writes a protocol line (stream-json only; the other formats print the result alone, see ``finalResult(_:)``).
    /// `paced` lines wait for the configured delay first.
    func emit(_ value: JSONValue, paced: Bool = true) {
        guard format == .streamJSON else { return }
        if paced && delayMicroseconds > 0 { usleep(delayMicroseconds) }
        var bytes = JSONWriter.bytes(value)
        bytes.append(0x0A)
        write(bytes)
    }

    /// Like ``emit(_:paced:)``, but builds the line after the pause from CLOCK_MONOTONIC read right before the write
    /// (the `stamped` command: a latency probe).
    func emitStamped(_ build: (Int64) -> JSONValue) {
        guard format == .streamJSON else { return }
        if delayMicroseconds > 0 { usleep(delayMicroseconds) }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        var bytes = JSONWriter.bytes(build(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)))
        bytes.append(0x0A)
        write(bytes)
    }

    /// Writes a line that is not JSON (the `garbage` command).
    func emitRaw(_ text: String) {
        guard format == .streamJSON else { return }
        write(Array((text + "\n").utf8))
    }

    /// The end of a turn: the `result` line in stream-json, the result object with `--output-format json`, the result
    /// text with `text`.
    func finalResult(_ result: JSONValue) {
        switch format {
        case .streamJSON: emit(result)
        case .json: write(JSONWriter.bytes(result) + [0x0A])
        case .text: write(Array(((result.objectValue?["result"]?.stringValue ?? "") + "\n").utf8))
        }
    }

    private func write(_ bytes: [UInt8]) {
        lock.withLock { _ in writeAll(1, bytes) }
    }
}

/// Writes all of `bytes` to `fd`, retrying short writes.
func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

/// The `FAKE_CLAUDE_LOG` file for tests: one JSON line per event, appended with a single write.
struct EventLog: Sendable {
    let path: String?

    func append(_ event: JSONValue) {
        guard let path else { return }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        writeAll(fd, JSONWriter.bytes(event) + [0x0A])
    }
}

/// What arrives on stdin, shared between the stdin reader thread and the turn thread.
///
/// All state is guarded by `condition`, which is also signalled whenever something arrives, so the turn thread can
/// block for the next user message, a permission decision, or an interrupt (while sleeping).
final class Inbox: @unchecked Sendable {
    /// How a wait for a permission decision ended.
    enum Decision {
        case response(JSONObject)
        case interrupted
        case endOfInput
    }

    private let condition = NSCondition()
    private var messages: [JSONObject] = []
    private var endOfInput = false
    private var turnActive = false
    private var interrupted = false
    private var responses: [String: JSONObject] = [:]
    private var settings: (model: String, permissionMode: String)

    init(model: String, permissionMode: String) {
        settings = (model, permissionMode)
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    /// The current model and permission mode (changed by `set_model` / `set_permission_mode`).
    var current: (model: String, permissionMode: String) { locked { settings } }

    // MARK: Reader side

    func receiveUser(_ message: JSONObject) {
        locked {
            messages.append(message)
            condition.broadcast()
        }
    }

    func receiveResponse(_ response: JSONObject, requestID: String) {
        locked {
            responses[requestID] = response
            condition.broadcast()
        }
    }

    /// Interrupts the running turn — or, when its user message has arrived but the turn has not begun yet, that turn
    /// as soon as it begins (the message was sent before the interrupt, so the interrupt is meant for it).
    func interrupt() {
        locked {
            if turnActive || !messages.isEmpty { interrupted = true }
            condition.broadcast()
        }
    }

    func receiveEndOfInput() {
        locked {
            endOfInput = true
            condition.broadcast()
        }
    }

    func setModel(_ model: String) { locked { settings.model = model } }
    func setPermissionMode(_ mode: String) { locked { settings.permissionMode = mode } }

    // MARK: Turn side

    /// Blocks until the next user message (which starts a turn), or returns nil at end of input.
    func nextMessage() -> JSONObject? {
        locked {
            while messages.isEmpty && !endOfInput { condition.wait() }
            guard !messages.isEmpty else { return nil }
            turnActive = true
            // An interrupt that came with this message (before the turn began) stays set: the turn ends at once.
            return messages.removeFirst()
        }
    }

    func endTurn() {
        locked {
            turnActive = false
            interrupted = false
        }
    }

    var isInterrupted: Bool { locked { interrupted } }

    /// Sleeps up to `seconds`; false when interrupted first.
    func sleep(_ seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: max(0, seconds))
        return locked {
            while !interrupted && Date() < deadline { _ = condition.wait(until: deadline) }
            return !interrupted
        }
    }

    /// Blocks until the `control_response` for `requestID` arrives, the turn is interrupted, or stdin ends.
    func waitForResponse(_ requestID: String) -> Decision {
        locked {
            while true {
                if let response = responses.removeValue(forKey: requestID) { return .response(response) }
                if interrupted { return .interrupted }
                if endOfInput { return .endOfInput }
                condition.wait()
            }
        }
    }
}

/// Reads stdin on its own thread (so control messages arrive while a turn runs), logs every line, answers control
/// requests at once, and hands user messages and permission decisions to the ``Inbox``.
struct StdinReader {
    let inbox: Inbox
    let output: Output
    let log: EventLog
    /// Writes the `system` `init` line again (after a model or permission-mode change).
    let announce: @Sendable () -> Void

    func start() {
        let thread = Thread { [self] in
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                pending.append(contentsOf: buffer[0..<count])
                while let newline = pending.firstIndex(of: 0x0A) {
                    handle(Array(pending[..<newline]))
                    pending.removeSubrange(...newline)
                }
            }
            if !pending.isEmpty { handle(pending) }
            inbox.receiveEndOfInput()
        }
        thread.name = "fake-claude.stdin"
        thread.start()
    }

    private func handle(_ line: [UInt8]) {
        guard line.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) else { return }
        guard let value = try? JSONParser.parse(line), let object = value.objectValue else {
            log.append(["event": "stdin", "line": .string(String(decoding: line, as: UTF8.self))])
            FileHandle.standardError.write(Data("fake-claude: ignoring a stdin line that is not a JSON object\n".utf8))
            return
        }
        log.append(["event": "stdin", "line": value])
        switch object["type"]?.stringValue {
        case "user":
            inbox.receiveUser(object)
        case "control_response":
            guard let response = object["response"]?.objectValue, let id = response["request_id"]?.stringValue else { return }
            inbox.receiveResponse(response, requestID: id)
        case "control_request":
            controlRequest(object)
        default:
            FileHandle.standardError.write(Data("fake-claude: ignoring stdin line of type \(object["type"].map(JSONWriter.string) ?? "none")\n".utf8))
        }
    }

    private func controlRequest(_ object: JSONObject) {
        let id = object["request_id"] ?? .null
        let request = object["request"]?.objectValue
        let subtype = request?["subtype"]?.stringValue ?? ""
        var announceAfter = false
        switch subtype {
        case "interrupt":
            inbox.interrupt()
        case "set_model":
            inbox.setModel(request?["model"]?.stringValue ?? Options.defaultModel)
            announceAfter = true
        case "set_permission_mode":
            guard let mode = request?["mode"]?.stringValue, Options.permissionModes.contains(mode) else {
                respondError(id, "Invalid permission mode: \(request?["mode"].map(JSONWriter.string) ?? "none")")
                return
            }
            inbox.setPermissionMode(mode)
            announceAfter = true
        case "initialize", "set_max_thinking_tokens", "mcp_status":
            break
        default:
            respondError(id, "Unsupported control request subtype: \(subtype)")
            return
        }
        output.emit(["type": "control_response", "response": ["subtype": "success", "request_id": id]], paced: false)
        if announceAfter { announce() }
    }

    private func respondError(_ id: JSONValue, _ message: String) {
        output.emit(["type": "control_response", "response": ["subtype": "error", "request_id": id, "error": .string(message)]], paced: false)
    }
}
