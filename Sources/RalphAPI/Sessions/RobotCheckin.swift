/// ralph's latest RObot check-in (`.ralph/api/robot-checkin.json`, web mode, written every
/// `RObot.checkin_interval_seconds`): how far the loop is, for a companion that has not heard from it otherwise.
public struct RobotCheckin: Codable, Hashable, Sendable {
    public var iteration: Int?
    public var elapsedSeconds: Int?
    public var loopId: String?
    /// When ralph wrote it, as written.
    public var timestamp: String?
    /// `context.current_hat`.
    public var currentHat: String?
    public var openTasks: Int?
    public var closedTasks: Int?
    public var cumulativeCost: Double?

    public init(
        iteration: Int?, elapsedSeconds: Int?, loopId: String?, timestamp: String?, currentHat: String? = nil, openTasks: Int? = nil,
        closedTasks: Int? = nil, cumulativeCost: Double? = nil
    ) {
        self.iteration = iteration
        self.elapsedSeconds = elapsedSeconds
        self.loopId = loopId
        self.timestamp = timestamp
        self.currentHat = currentHat
        self.openTasks = openTasks
        self.closedTasks = closedTasks
        self.cumulativeCost = cumulativeCost
    }

    enum CodingKeys: String, CodingKey {
        case iteration, timestamp
        case elapsedSeconds = "elapsed_seconds"
        case loopId = "loop_id"
        case currentHat = "current_hat"
        case openTasks = "open_tasks"
        case closedTasks = "closed_tasks"
        case cumulativeCost = "cumulative_cost"
    }
}
