public struct PresetsResponse: Codable, Hashable, Sendable {
    public var presets: [PresetItem]
    public init(presets: [PresetItem]) { self.presets = presets }
}
