/// One check named in a `build.done`/`build.blocked` payload (`tests: pass`).
public struct BackpressureCheck: Codable, Hashable, Sendable {
    public var name: String
    /// What the payload said: `pass`, `fail`, or the word written there.
    public var result: String
    public var passed: Bool

    public init(name: String, result: String, passed: Bool) {
        self.name = name
        self.result = result
        self.passed = passed
    }
}
