import Dispatch
import Foundation
import Logging
import RalphAPI
import RalphFiles
import Synchronization

/// `<data-dir>/state/runs.json`, written in order: every state handed in carries a version, and one writer at a time
/// writes the newest state it holds, so an older state never lands after a newer one however the calls interleave.
///
/// States are handed in as they are made (under the owner's lock, with their version) and written on a serial queue
/// off the caller's thread; ``flushed(through:)`` waits until a version (or a newer one) is on disk.
final class RunStateFile: Sendable {
    private struct State {
        /// The newest state handed in and not written yet.
        var queued: (version: Int, value: RunSupervisor.Persisted)?
        /// The newest version accepted (queued, being written, or written): anything not newer is dropped.
        var accepted = 0
        /// The newest version written (or attempted: a failed write is logged and not retried until the next change).
        var written = 0
        var writing = false
        var waiters: [(version: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    let path: String
    private let logger: Logger
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "ralph-mobile.runs.state-file")

    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
    }

    /// The state last written by a previous server process, nil when there is none; a file that cannot be decoded is
    /// reported as an error (the caller logs it and starts empty).
    func load() throws -> RunSupervisor.Persisted? {
        guard let bytes = FileSystem.readSmallFile(path, limit: 16 << 20) else { return nil }
        return try WireJSON.decode(RunSupervisor.Persisted.self, from: Data(bytes))
    }

    /// Hands in the state of `version`; ignored when a newer one was handed in already.
    func submit(_ value: RunSupervisor.Persisted, version: Int) {
        let startWriter = state.withLock { s -> Bool in
            guard version > s.accepted else { return false }
            s.accepted = version
            s.queued = (version, value)
            guard !s.writing else { return false }
            s.writing = true
            return true
        }
        if startWriter { queue.async { self.drain() } }
    }

    /// Writes the newest queued state until none is left (runs on the serial queue; only one drain at a time).
    private func drain() {
        while true {
            let next = state.withLock { s -> (version: Int, value: RunSupervisor.Persisted)? in
                guard let queued = s.queued else {
                    s.writing = false
                    return nil
                }
                s.queued = nil
                return queued
            }
            guard let next else { return }
            do {
                try WireJSON.encodePretty(next.value).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                logger.error("cannot save \(path): \(error)")
            }
            let done = state.withLock { s -> [CheckedContinuation<Void, Never>] in
                s.written = max(s.written, next.version)
                let written = s.written
                let ready = s.waiters.filter { $0.version <= written }.map(\.continuation)
                s.waiters.removeAll { $0.version <= written }
                return ready
            }
            done.forEach { $0.resume() }
        }
    }

    /// Returns once `version` (or a newer one) has been written.
    func flushed(through version: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.written >= version { return true }
                s.waiters.append((version, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// The newest version written.
    var writtenVersion: Int { state.withLock { $0.written } }
}
