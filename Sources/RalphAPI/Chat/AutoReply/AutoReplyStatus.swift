/// `GET/PUT /api/conversations/{id}/auto-reply`: the settings and where the loop is.
public struct AutoReplyStatus: Codable, Hashable, Sendable {
    public var settings: AutoReplySettings
    public var progress: AutoReplyProgress
    public init(settings: AutoReplySettings, progress: AutoReplyProgress) {
        self.settings = settings
        self.progress = progress
    }
}
