/// An ntfy topic to publish to.
public struct NtfyTopic: Codable, Hashable, Sendable {
    /// The topic's URL: `https://ntfy.sh/<topic>` or the same on a self-hosted server.
    public var url: String
    /// An access token for a protected topic (sent as `Authorization: Bearer`); never returned by the API.
    public var token: String?

    public init(url: String, token: String? = nil) {
        self.url = url
        self.token = token
    }
}
