import Crypto
import Foundation

/// The credential of a notification's button: single-use, short-lived, for one decision (allow, deny, answer) on
/// one thing (an approval, a question), minted per device at delivery. Only its SHA-256 is stored.
struct ActionToken: Sendable, Hashable {
    /// Why a token was refused. Nothing changes in any case.
    enum Refusal: Error, Equatable {
        case unknown
        case used
        case expired
    }

    var hash: String
    /// `allow`, `deny` or `answer`.
    var action: String
    var subject: String
    var subjectID: String
    /// The approval id or question id.
    var target: String
    var deviceID: String
    /// The key whose device it was sent to: the action is done with that key's rights, checked again when used.
    var keyID: String?
    var expiresAt: Date

    /// A new token: the secret to put in the notification, and the record to store.
    static func mint(
        action: String, subject: String, subjectID: String, target: String, deviceID: String, keyID: String?, expiresAt: Date
    ) -> (secret: String, token: ActionToken) {
        var generator = SystemRandomNumberGenerator()
        let secret = "rmact_" + (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
        let token = ActionToken(
            hash: hash(secret), action: action, subject: subject, subjectID: subjectID, target: target, deviceID: deviceID, keyID: keyID,
            expiresAt: expiresAt)
        return (secret, token)
    }

    static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
