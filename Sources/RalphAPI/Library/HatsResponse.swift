public struct HatsResponse: Codable, Hashable, Sendable {
    public var hats: [HatItem]
    public init(hats: [HatItem]) { self.hats = hats }
}
