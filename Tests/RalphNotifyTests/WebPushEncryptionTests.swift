import Crypto
import Foundation
import RalphNotify
import Testing

@Suite struct WebPushEncryptionTests {
    /// RFC 8291 Appendix A, byte for byte: the sender key and salt fixed, the body must be the RFC's.
    @Test func reproducesRFC8291WorkedExample() throws {
        let sender = try P256.KeyAgreement.PrivateKey(rawRepresentation: b64("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))
        let body = try WebPushEncryption.encrypt(
            Array("When I grow up, I want to be a watermelon".utf8),
            p256dh: b64("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"),
            auth: b64("BTBZMqHH6r4Tts7J_aSIgg"),
            senderKey: sender,
            salt: b64("DGv6ra1nlYgDCS1FRnbzlw"))
        #expect(Base64URL.encode(body) == """
            DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl\
            7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN
            """)
    }

    @Test func roundTripsWithTheReceiversKey() throws {
        let receiver = P256.KeyAgreement.PrivateKey()
        let auth = Array(repeating: UInt8(7), count: 16)
        let message = Array(#"{"kind":"approval","title":"Bash wants to run"}"#.utf8)
        let body = try WebPushEncryption.encrypt(message, p256dh: Array(receiver.publicKey.x963Representation), auth: auth)
        #expect(try WebPushEncryption.decrypt(body, receiverKey: receiver, auth: auth) == message)
        // A fresh salt and sender key each time: the same message never encrypts the same way twice.
        let again = try WebPushEncryption.encrypt(message, p256dh: Array(receiver.publicKey.x963Representation), auth: auth)
        #expect(again != body)
    }

    @Test func refusesBadSubscriptionKeysAndOversizedMessages() throws {
        let receiver = Array(P256.KeyAgreement.PrivateKey().publicKey.x963Representation)
        #expect(throws: WebPushEncryption.Failure.badAuthSecret) {
            try WebPushEncryption.encrypt([1], p256dh: receiver, auth: [1, 2, 3])
        }
        #expect(throws: WebPushEncryption.Failure.badPublicKey) {
            try WebPushEncryption.encrypt([1], p256dh: Array(repeating: 4, count: 65), auth: Array(repeating: 0, count: 16))
        }
        let large = Array(repeating: UInt8(65), count: WebPushEncryption.maxPlaintext + 1)
        #expect(throws: WebPushEncryption.Failure.tooLarge(large.count)) {
            try WebPushEncryption.encrypt(large, p256dh: receiver, auth: Array(repeating: 0, count: 16))
        }
    }

    private func b64(_ text: String) -> [UInt8] { Base64URL.decode(text)! }
}
