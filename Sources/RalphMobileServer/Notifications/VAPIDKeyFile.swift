import Crypto
import Foundation

/// The server's VAPID key pair, generated once and kept in the data directory (`vapid-key.pem`, mode 0600): browsers
/// subscribed with its public key, so a new key would silently end every subscription.
enum VAPIDKeyFile {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func loadOrCreate(path: String) throws(Failure) -> P256.Signing.PrivateKey {
        if FileManager.default.fileExists(atPath: path) {
            do {
                let pem = try String(contentsOfFile: path, encoding: .utf8)
                return try P256.Signing.PrivateKey(pemRepresentation: pem)
            } catch {
                throw Failure(description: "cannot read the VAPID key \(path): \(error); move it away to make a new one (browsers then subscribe again)")
            }
        }
        let key = P256.Signing.PrivateKey()
        let created = FileManager.default.createFile(
            atPath: path, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
        guard created else { throw Failure(description: "cannot write the VAPID key \(path)") }
        return key
    }
}
