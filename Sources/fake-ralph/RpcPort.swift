import Foundation
import RalphAPI
import RalphFiles
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// ralph's RPC mode (`ralph run --rpc`, reference §3): newline-delimited JSON commands on stdin, events on stdout.
///
/// The loop runs on the main thread; commands are read on a thread of their own and answered at once (a steer must
/// land while an iteration runs), so what both sides need is kept here under one lock. The one port is global, like
/// ``stopRequested``: the double runs one loop per process.
final class RpcPort: Sendable {
    /// What the loop tells the command thread (and the command thread leaves for the loop).
    struct Shared {
        var enabled = false
        /// Where `guidance` is recorded and `steer` persisted.
        var eventsFile = ""
        var urgentSteerFile = ""
        var maxIterations = 0
        var backend = "claude"
        var hats: [String] = []
        var startedAt = Date()
        /// The iteration in progress (0: none) and its hat.
        var iteration = 0
        var hat: String?
        var iterationStartedAt = Date()
        var totalCost = 0.0
        var completed = false
        /// `follow_up`: text for the next iteration's record.
        var followUps: [String] = []
        /// `abort`'s reason, once it came.
        var abortReason: String?
        /// stdout broke (the reader went away): nothing more is written.
        var disconnected = false
    }

    let shared = Mutex(Shared())

    var isEnabled: Bool { shared.withLock { $0.enabled } }

    /// Writes one event line; with the lock held, so lines from the two threads never interleave. A broken stdout
    /// (the server went away) ends the events, not the loop: the events file goes on.
    func emit(_ type: String, _ fields: [String: Any] = [:]) {
        var object = fields
        object["type"] = type
        let data: Data
        do {
            data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        } catch {
            FileHandle.standardError.write(Data("fake-ralph: cannot encode the \(type) event: \(error)\n".utf8))
            return
        }
        var bytes = [UInt8](data)
        bytes.append(0x0A)
        shared.withLock { s in
            guard s.enabled, !s.disconnected else { return }
            var written = 0
            while written < bytes.count {
                let n = bytes.withUnsafeBytes { write(1, $0.baseAddress! + written, bytes.count - written) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else {
                    s.disconnected = true
                    FileHandle.standardError.write(Data("fake-ralph: RPC output closed; events go to the events file only\n".utf8))
                    return
                }
                written += n
            }
        }
    }

    /// Answers a command (every command is answered; `id` only when it carried one, as ralph's `response` does).
    func respond(_ id: String?, command: String, data: Any? = nil, error: String? = nil) {
        var fields: [String: Any] = ["command": command, "success": error == nil]
        if let id { fields["id"] = id }
        if let error { fields["error"] = error } else if let data { fields["data"] = data }
        emit("response", fields)
    }

    /// Reads commands until stdin ends (a closed stdin leaves the loop running, as a lost controller would).
    func startReading() {
        let thread = Thread { [self] in
            while let line = readLine(strippingNewline: true) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if !trimmed.isEmpty { handle(trimmed) }
            }
        }
        thread.name = "fake-ralph.rpc-stdin"
        thread.start()
    }
}

/// The process's RPC port (idle unless `--rpc`).
let rpcPort = RpcPort()
