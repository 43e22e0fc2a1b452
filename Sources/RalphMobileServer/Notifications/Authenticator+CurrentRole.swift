import RalphAPI

extension Authenticator {
    /// The role a key id grants now — what a device registered with it may do when a notification is acted on: nil
    /// when the key was revoked or the keys file cannot be read. `nil` key ids are trusted loopback callers.
    func currentRole(keyID: String?) -> Role? {
        guard authRequired else { return .admin }
        switch keyID {
        case nil: return nil
        case "cli": return apiKeyFingerprint != nil ? .admin : nil
        case let id?:
            guard keyStore.failure == nil else { return nil }
            return keyStore.keys.first { $0.id == id }?.role
        }
    }
}
