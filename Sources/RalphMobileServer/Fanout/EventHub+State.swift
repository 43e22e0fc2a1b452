import Foundation
import Logging
import NIOCore
import RalphAPI
import RalphFiles
import Synchronization

/// Runs waiting for a state frame, and the signal that wakes the task sending them. Marking never blocks (it runs on
/// the catalog's thread).
final class StateQueue: Sendable {
    struct Marks {
        /// Run id → whether its detail changed (else only new or caught-up subscribers need a state frame).
        var runs: [String: Bool] = [:]
    }

    private let marks = Mutex(Marks())
    private let signal: AsyncStream<Void>.Continuation
    let wakeups: AsyncStream<Void>

    init() {
        (wakeups, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func mark(_ id: String, changed: Bool) {
        marks.withLock { $0.runs[id] = ($0.runs[id] ?? false) || changed }
        signal.yield()
    }

    /// The marked runs, cleared.
    func take() -> [String: Bool] {
        marks.withLock { marks in
            defer { marks.runs = [:] }
            return marks.runs
        }
    }

    func finish() { signal.finish() }
}

extension EventHub {
    /// A run's session detail as state frames describe it: the detail, how many lines it covers, and whether the run
    /// is still live (with its `end` frame when not).
    struct RunDetail: Sendable {
        var detail: SessionDetail
        var lineCount: Int
        var end: ByteBuffer?
    }

    /// Sends state frames until cancelled: after a change, at most every `interval`, each marked run's detail goes to
    /// its subscribers that take state frames, after the `workflow` frames it describes. A run that ended gets its last
    /// state and then the `end` frame held for those subscribers. `details` reads a run's detail (nil: gone).
    func runStateFeed(
        interval: Duration = .milliseconds(100), logger: Logger, details: @escaping @Sendable (String) async throws -> RunDetail?
    ) async {
        for await _ in stateQueue.wakeups {
            do { try await Task.sleep(for: interval) } catch { return }
            for (id, changed) in stateQueue.take() {
                guard runs.stateInterest(id).any else { continue }
                let current: RunDetail?
                do {
                    current = try await details(id)
                } catch {
                    logger.warning("could not read session \(id)'s detail for its state frame: \(error)")
                    continue
                }
                guard let current else { continue }
                let frame = SSEFrame.event(id: nil, name: StreamEventName.state, value: current.detail)
                // A state describing lines the stream has not had yet waits: the change carrying them marks the run again.
                guard runs.publishState(id, frame: frame, head: current.lineCount, changed: changed) else { continue }
                if let end = current.end { runs.endHeld(id, with: end) }
            }
        }
    }
}
