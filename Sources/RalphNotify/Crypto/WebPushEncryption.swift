import Crypto
import Foundation

/// Encrypts a Web Push message for one subscription: RFC 8291 (Message Encryption for Web Push) over RFC 8188's
/// `aes128gcm` content coding, one record.
///
/// The subscription's browser gave us its P-256 public key (`p256dh`, 65 bytes uncompressed) and a 16-byte `auth`
/// secret. Each message uses a fresh sender key pair and salt, so two identical messages never look alike.
public enum WebPushEncryption {
    /// Why a message could not be encrypted for a subscription.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The subscription's `p256dh` is not an uncompressed P-256 point.
        case badPublicKey
        /// The subscription's `auth` secret is not 16 bytes.
        case badAuthSecret
        /// The message does not fit one 4096-byte record (push services refuse larger bodies anyway).
        case tooLarge(Int)

        public var description: String {
            switch self {
            case .badPublicKey: "the subscription's p256dh key is not an uncompressed P-256 public key"
            case .badAuthSecret: "the subscription's auth secret is not 16 bytes"
            case .tooLarge(let size): "the message is \(size) bytes; a Web Push message holds at most \(maxPlaintext)"
            }
        }
    }

    /// The record size written in the header: the largest a push service must accept.
    public static let recordSize: UInt32 = 4096
    /// The most plaintext one record carries: the record size less the 16-byte tag and the 1-byte delimiter.
    public static let maxPlaintext = Int(recordSize) - 16 - 1

    /// The body to POST to the subscription's endpoint (with `Content-Encoding: aes128gcm`).
    ///
    /// `senderKey` and `salt` are parameters so that tests can reproduce RFC 8291's worked example; callers leave
    /// them out.
    public static func encrypt(
        _ plaintext: [UInt8],
        p256dh: [UInt8],
        auth: [UInt8],
        senderKey: P256.KeyAgreement.PrivateKey = .init(),
        salt: [UInt8]? = nil
    ) throws -> [UInt8] {
        guard plaintext.count <= maxPlaintext else { throw Failure.tooLarge(plaintext.count) }
        guard auth.count == 16 else { throw Failure.badAuthSecret }
        guard p256dh.count == 65, let receiverKey = try? P256.KeyAgreement.PublicKey(x963Representation: p256dh) else {
            throw Failure.badPublicKey
        }
        let salt = salt ?? randomBytes(16)
        let senderPublic = Array(senderKey.publicKey.x963Representation)
        let shared = try senderKey.sharedSecretFromKeyAgreement(with: receiverKey)

        let (cek, nonce) = try contentKeys(
            shared: shared, auth: auth, receiverPublic: p256dh, senderPublic: senderPublic, salt: salt)

        // One record, so it is the last: the plaintext, then the delimiter 0x02 (no padding).
        let sealed = try AES.GCM.seal(plaintext + [2], using: cek, nonce: nonce)
        var body = salt
        body += withUnsafeBytes(of: recordSize.bigEndian) { Array($0) }
        body.append(UInt8(senderPublic.count))
        body += senderPublic
        body += sealed.ciphertext
        body += sealed.tag
        return body
    }

    /// Decrypts an `aes128gcm` body with the receiver's keys: what a browser does. The tests' independent check is
    /// Python's `http_ece`; this is for the Swift-side round trip and the local receivers.
    public static func decrypt(_ body: [UInt8], receiverKey: P256.KeyAgreement.PrivateKey, auth: [UInt8]) throws -> [UInt8] {
        guard body.count > 21 else { throw Failure.badPublicKey }
        let salt = Array(body[0..<16])
        let idLength = Int(body[20])
        guard body.count > 21 + idLength + 16 else { throw Failure.badPublicKey }
        let senderPublic = Array(body[21..<(21 + idLength)])
        let senderKey = try P256.KeyAgreement.PublicKey(x963Representation: senderPublic)
        let shared = try receiverKey.sharedSecretFromKeyAgreement(with: senderKey)
        let (cek, nonce) = try contentKeys(
            shared: shared, auth: auth, receiverPublic: Array(receiverKey.publicKey.x963Representation),
            senderPublic: senderPublic, salt: salt)
        let record = Array(body[(21 + idLength)...])
        let box = try AES.GCM.SealedBox(
            nonce: nonce, ciphertext: record.dropLast(16), tag: record.suffix(16))
        var plain = Array(try AES.GCM.open(box, using: cek))
        // Strip the padding zeros and the delimiter.
        while let last = plain.last, last == 0 { plain.removeLast() }
        guard plain.last == 2 else { throw Failure.badAuthSecret }
        plain.removeLast()
        return plain
    }

    /// RFC 8291 §3.3–3.4 and RFC 8188 §2.2: the input key from the ECDH secret and the auth secret, then the content
    /// encryption key and the nonce from it and the salt.
    private static func contentKeys(
        shared: SharedSecret, auth: [UInt8], receiverPublic: [UInt8], senderPublic: [UInt8], salt: [UInt8]
    ) throws -> (SymmetricKey, AES.GCM.Nonce) {
        let keyInfo = Array("WebPush: info".utf8) + [0] + receiverPublic + senderPublic
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: auth, sharedInfo: keyInfo, outputByteCount: 32)
        let cek = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        return (cek, try nonce.withUnsafeBytes { try AES.GCM.Nonce(data: Array($0)) })
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
