public struct ConfigsResponse: Codable, Hashable, Sendable {
    public var configs: [ConfigItem]
    public init(configs: [ConfigItem]) { self.configs = configs }
}
