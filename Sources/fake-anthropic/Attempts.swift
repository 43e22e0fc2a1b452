import Synchronization

/// How many requests each (prompt, step) has had, in memory: the one piece of state, for `fail <status> <n>` and the
/// log's `attempt`. A restarted fake-anthropic counts from zero again.
final class Attempts: Sendable {
    private struct Key: Hashable {
        var prompt: String
        var step: Int
    }

    private let counts = Mutex<[Key: Int]>([:])

    /// Counts one more request for (`prompt`, `step`) and returns its number, 1 for the first.
    func next(prompt: String, step: Int) -> Int {
        counts.withLock { counts in
            let n = counts[Key(prompt: prompt, step: step), default: 0] + 1
            counts[Key(prompt: prompt, step: step)] = n
            return n
        }
    }
}
