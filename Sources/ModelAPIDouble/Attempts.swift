import Synchronization

/// How many requests each (prompt, step) has had, in memory: a double's one piece of state, for `fail <status> <n>`
/// and the log's `attempt`. A restarted double counts from zero again.
public final class Attempts: Sendable {
    private struct Key: Hashable {
        var prompt: String
        var step: Int
    }

    private let counts = Mutex<[Key: Int]>([:])

    public init() {}

    /// Counts one more request for (`prompt`, `step`) and returns its number, 1 for the first.
    public func next(prompt: String, step: Int) -> Int {
        counts.withLock { counts in
            let n = counts[Key(prompt: prompt, step: step), default: 0] + 1
            counts[Key(prompt: prompt, step: step)] = n
            return n
        }
    }
}
