public struct TitleUpdateEvent: Codable, Hashable, Sendable {
    public var title: String
    public init(title: String) { self.title = title }
}
