/// A browser's push subscription, as `PushSubscription.toJSON()` gives it.
public struct WebPushSubscription: Codable, Hashable, Sendable {
    /// The push service URL to POST messages to.
    public var endpoint: String
    public var keys: Keys

    public struct Keys: Codable, Hashable, Sendable {
        /// The browser's P-256 public key, base64url of the uncompressed point (65 bytes).
        public var p256dh: String
        /// The 16-byte authentication secret, base64url.
        public var auth: String

        public init(p256dh: String, auth: String) {
            self.p256dh = p256dh
            self.auth = auth
        }
    }

    public init(endpoint: String, keys: Keys) {
        self.endpoint = endpoint
        self.keys = keys
    }
}
