/// Why and how a run ended, parsed from its `loop.terminate` record.
public struct StopReason: Codable, Hashable, Sendable {
    /// ralph's reason word: completed, max_iterations, max_runtime, max_cost, consecutive_failures, loop_thrashing,
    /// validation_failure, stopped, interrupted, restart_requested, and since ralph 2.10 loop_stale, workspace_gone
    /// (failed) and cancelled (stopped) — or `exited` when the loop ended without writing `loop.terminate`.
    public var reason: String
    /// ralph's status sentence, e.g. "All tasks completed successfully."
    public var message: String?
    public var iterations: Int?
    /// Duration as ralph printed it ("21m 0s").
    public var duration: String?
    public var exitCode: Int?
    /// When the run ended.
    public var at: String?

    public init(reason: String, message: String? = nil, iterations: Int? = nil, duration: String? = nil, exitCode: Int? = nil, at: String? = nil) {
        self.reason = reason
        self.message = message
        self.iterations = iterations
        self.duration = duration
        self.exitCode = exitCode
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case reason, message, iterations, duration, at
        case exitCode = "exit_code"
    }
}
