/// Data of `session.removed`.
public struct SessionRemoved: Codable, Hashable, Sendable {
    public var id: String
    public init(id: String) { self.id = id }
}
