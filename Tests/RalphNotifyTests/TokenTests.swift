import Crypto
import Foundation
import RalphNotify
import Testing

@Suite struct TokenTests {
    @Test func vapidAuthorizationNamesTheEndpointsOriginAndVerifies() throws {
        let key = P256.Signing.PrivateKey()
        let vapid = try VAPID(key: key, subject: "mailto:ops@example.com")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let header = try vapid.authorization(endpoint: "https://push.example.net:8443/wpush/v2/abc?x=1", now: now)
        let parts = header.split(separator: " ")
        #expect(parts.first == "vapid")
        let token = String(parts[1].dropFirst(2).dropLast())   // t=<jwt>,
        #expect(String(parts[2]) == "k=\(vapid.publicKey)")
        let claims = try #require(ES256JWT.verify(token, key: key.publicKey))
        #expect(claims["aud"] == .string("https://push.example.net:8443"))
        #expect(claims["sub"] == .string("mailto:ops@example.com"))
        #expect(claims["exp"] == .integer(1_800_000_000 + 12 * 3600))
        // Signed by another key: refused.
        #expect(ES256JWT.verify(token, key: P256.Signing.PrivateKey().publicKey) == nil)
    }

    @Test(arguments: ["ops@example.com", "http://example.com", "mailto:", "urn:x", ""])
    func vapidRefusesSubjectsPushServicesRefuse(subject: String) {
        #expect(throws: VAPID.Failure.badSubject(subject)) { try VAPID(key: .init(), subject: subject) }
    }

    @Test func apnsTokenIsReusedForHalfAnHourThenRenewed() throws {
        let key = P256.Signing.PrivateKey()
        let token = try APNsToken(pem: key.pemRepresentation, keyID: "ABC123DEFG", teamID: "TEAM123456")
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try token.current(now: start)
        #expect(try token.current(now: start.addingTimeInterval(29 * 60)) == first)
        let renewed = try token.current(now: start.addingTimeInterval(31 * 60))
        #expect(renewed != first)
        let claims = try #require(ES256JWT.verify(renewed, key: key.publicKey))
        #expect(claims["iss"] == .string("TEAM123456"))
        #expect(claims["iat"] == .integer(1_800_000_000 + 31 * 60))
        let header = try #require(Base64URL.decode(String(renewed.split(separator: ".")[0])))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
    }

    @Test func apnsTokenRefusesAKeyThatIsNotAP8() {
        #expect(throws: APNsToken.Failure.self) { try APNsToken(pem: "not a key", keyID: "K", teamID: "T") }
    }
}
