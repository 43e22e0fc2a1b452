import Foundation
import RalphAPI

#if canImport(Glibc)
import Glibc
#endif

/// Reads stdin on its own thread (so control messages arrive while a turn runs), logs every line, answers control
/// requests at once, and hands user messages and permission decisions to the ``Inbox``.
struct StdinReader {
    let inbox: Inbox
    let output: Output
    let log: EventLog
    let sessionID: String

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
            inbox.receiveUser(UserMessage(line: object))
        case "control_response":
            guard let response = object["response"]?.objectValue, let id = response["request_id"]?.stringValue else { return }
            inbox.receiveResponse(response, requestID: id)
        case "control_request":
            controlRequest(object)
        default:
            FileHandle.standardError.write(Data("fake-claude: ignoring stdin line of type \(object["type"].map(JSONWriter.string) ?? "none")\n".utf8))
        }
    }

    /// Answers like the real CLI: `interrupt` with the uuids still queued, `set_model` with the model,
    /// `set_permission_mode` with the mode and a `status` line; no new `init` (the next turn's shows the change).
    private func controlRequest(_ object: JSONObject) {
        let id = object["request_id"] ?? .null
        let request = object["request"]?.objectValue
        let subtype = request?["subtype"]?.stringValue ?? ""
        switch subtype {
        case "interrupt":
            inbox.interrupt(requestID: id)
        case "set_model":
            let model = request?["model"]?.stringValue ?? Options.defaultModel
            inbox.setModel(model)
            output.emit(Lines.controlSuccess(id, response: ["model": .string(model)]), paced: false)
        case "set_permission_mode":
            guard let mode = request?["mode"]?.stringValue, Options.acceptedPermissionModes.contains(mode) else {
                output.emit(Lines.controlError(id, "Invalid permission mode: \(request?["mode"].map(JSONWriter.string) ?? "none")"), paced: false)
                return
            }
            inbox.setPermissionMode(mode)
            output.emit(Lines.controlSuccess(id, response: ["mode": .string(mode)]), paced: false)
            output.emit(Lines.modeChanged(mode, sessionID: sessionID), paced: false)
        case "initialize", "set_max_thinking_tokens", "mcp_status":
            output.emit(Lines.controlSuccess(id), paced: false)
        default:
            output.emit(Lines.controlError(id, "Unsupported control request subtype: \(subtype)"), paced: false)
        }
    }
}
