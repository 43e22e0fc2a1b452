/// How often a hat was at work.
public struct HatUsage: Codable, Hashable, Sendable {
    public var hat: String
    /// Iterations in which the hat was at work.
    public var iterations: Int
    /// Events published by the hat.
    public var events: Int

    public init(hat: String, iterations: Int, events: Int) {
        self.hat = hat
        self.iterations = iterations
        self.events = events
    }
}
