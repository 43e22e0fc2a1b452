import Crypto
import Foundation
import RalphAPI

/// A compact JWS signed with ES256 (ECDSA P-256 with SHA-256): the form of both a VAPID token (RFC 8292) and an
/// APNs provider token. The signature is the raw 64-byte `r || s` JWS wants, not DER.
public enum ES256JWT {
    /// `base64url(header) . base64url(claims) . base64url(signature)`. Header and claims are encoded with sorted keys
    /// so that the same input gives the same token bytes (the signature itself is randomised).
    public static func sign(header: [String: String], claims: [String: JWTClaim], key: P256.Signing.PrivateKey) throws -> String {
        var fullHeader = header
        fullHeader["alg"] = "ES256"
        let signingInput = Base64URL.encode(try WireJSON.encode(fullHeader)) + "." + Base64URL.encode(try WireJSON.encode(claims))
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// Checks an ES256 token against `key` and returns its claims: for tests and for the receivers the tests run.
    public static func verify(_ token: String, key: P256.Signing.PublicKey) -> [String: JWTClaim]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let signatureBytes = Base64URL.decode(String(parts[2])),
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
              key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)),
              let claimBytes = Base64URL.decode(String(parts[1]))
        else { return nil }
        return try? WireJSON.decode([String: JWTClaim].self, from: Data(claimBytes))
    }
}

/// A JWT claim value: the claims used here are strings (`aud`, `sub`, `iss`) and integers (`exp`, `iat`).
public enum JWTClaim: Codable, Sendable, Equatable {
    case string(String)
    case integer(Int)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            self = .integer(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .integer(let number): try container.encode(number)
        }
    }
}
