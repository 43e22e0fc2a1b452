import Crypto
import Foundation
import Synchronization

/// The provider authentication token APNs wants in `authorization: bearer …`: an ES256 JWT signed with the developer's
/// own `.p8` key, naming the key id (`kid`) and the team (`iss`), with its issue time (`iat`).
///
/// APNs refuses a token older than an hour and one refreshed more often than every 20 minutes
/// (`TooManyProviderTokenUpdates`), so ``current(now:)`` hands out the same token for ``refreshAfter`` seconds.
public final class APNsToken: Sendable {
    /// Why the key could not be read.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case badKey(String)

        public var description: String {
            switch self {
            case .badKey(let reason): "the APNs key is not a PKCS#8 P-256 private key (.p8): \(reason)"
            }
        }
    }

    /// A token is reused for 30 minutes: inside APNs' window of 20 to 60.
    public static let refreshAfter: TimeInterval = 30 * 60

    public let keyID: String
    public let teamID: String
    /// The `.p8` key's 32 raw bytes (the key type itself is not `Sendable`).
    private let keyBytes: Data
    private let cache = Mutex<(token: String, issued: Date)?>(nil)

    /// `pem` is the content of the `.p8` file Apple's developer site gives out (`-----BEGIN PRIVATE KEY-----`).
    public init(pem: String, keyID: String, teamID: String) throws {
        do {
            keyBytes = try P256.Signing.PrivateKey(pemRepresentation: pem).rawRepresentation
        } catch {
            throw Failure.badKey(String(describing: error))
        }
        self.keyID = keyID
        self.teamID = teamID
    }

    /// The token to send now: the cached one while it is younger than ``refreshAfter``, else a new one.
    public func current(now: Date = Date()) throws -> String {
        try cache.withLock { cached in
            if let cached, now.timeIntervalSince(cached.issued) < Self.refreshAfter, now >= cached.issued {
                return cached.token
            }
            let token = try ES256JWT.sign(
                header: ["kid": keyID], claims: ["iss": .string(teamID), "iat": .integer(Int(now.timeIntervalSince1970))],
                key: try P256.Signing.PrivateKey(rawRepresentation: keyBytes))
            cached = (token, now)
            return token
        }
    }
}
