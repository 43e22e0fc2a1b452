import Crypto
import Foundation
import RalphAPI
import RalphNotify

/// Checks a registration before anything is stored, and fills in what the server chooses (a webhook secret).
enum DeviceRegistration {
    /// The registration to store, or `400 invalid_body` saying what is wrong.
    static func validated(_ request: RegisterDeviceRequest) throws(APIError) -> RegisterDeviceRequest {
        var request = request
        let name = request.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .invalidBody("name must not be empty") }
        guard name.count <= 100 else { throw .invalidBody("name is longer than 100 characters") }
        request.name = name
        if let problem = request.quietHours?.problem { throw .invalidBody(problem) }
        let given = [
            (NotificationChannel.webPush, request.webPush != nil), (.apns, request.apns != nil), (.ntfy, request.ntfy != nil),
            (.webhook, request.webhook != nil),
        ]
        for (channel, present) in given where present != (channel == request.channel) {
            throw .invalidBody(
                present
                    ? "\(channel.rawValue) is given but channel is \(request.channel.rawValue)"
                    : "channel \(request.channel.rawValue) needs its \(request.channel.rawValue) field")
        }
        if let replaced = request.replacesEndpoint {
            guard request.channel == .webPush else { throw .invalidBody("replaces_endpoint is only for web_push registrations") }
            guard isHTTPURL(replaced, httpsOnly: true) else {
                throw .invalidBody("replaces_endpoint must be the https endpoint of the subscription this one replaces")
            }
        }
        switch request.channel {
        case .webPush: try check(request.webPush!)
        case .apns: try check(request.apns!)
        case .ntfy:
            guard let topic = request.ntfy, NtfySender.split(topic.url) != nil else {
                throw .invalidBody("ntfy.url must be an http(s) topic URL such as https://ntfy.sh/my-topic (letters, digits, - and _)")
            }
            if let token = topic.token, token.isEmpty || token.count > 200 { throw .invalidBody("ntfy.token must be 1 to 200 characters") }
        case .webhook:
            guard var hook = request.webhook, isHTTPURL(hook.url, httpsOnly: false) else {
                throw .invalidBody("webhook.url must be an absolute http(s) URL")
            }
            if let secret = hook.secret {
                guard secret.count >= 16, secret.count <= 200 else { throw .invalidBody("webhook.secret must be 16 to 200 characters") }
            } else {
                hook.secret = generatedSecret()
            }
            request.webhook = hook
        }
        return request
    }

    private static func check(_ subscription: WebPushSubscription) throws(APIError) {
        guard isHTTPURL(subscription.endpoint, httpsOnly: true) else {
            throw .invalidBody("web_push.endpoint must be an https URL (http only to a loopback address)")
        }
        guard let key = Base64URL.decode(subscription.keys.p256dh), key.count == 65,
            (try? P256.KeyAgreement.PublicKey(x963Representation: key)) != nil
        else { throw .invalidBody("web_push.keys.p256dh must be the base64url of an uncompressed P-256 public key (65 bytes)") }
        guard let auth = Base64URL.decode(subscription.keys.auth), auth.count == 16 else {
            throw .invalidBody("web_push.keys.auth must be the base64url of 16 bytes")
        }
    }

    private static func check(_ device: APNsDevice) throws(APIError) {
        let token = device.deviceToken
        guard (32...400).contains(token.count), token.count % 2 == 0, token.allSatisfy(\.isHexDigit) else {
            throw .invalidBody("apns.device_token must be the device token in hex (64 characters today)")
        }
    }

    /// An absolute http(s) URL with a host; plain http only to loopback when `httpsOnly`.
    static func isHTTPURL(_ text: String, httpsOnly: Bool) -> Bool {
        guard text.count <= 2000, let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            return false
        }
        if scheme == "https" { return true }
        guard scheme == "http" else { return false }
        return !httpsOnly || host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]"
    }

    static func generatedSecret() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { bytes in bytes.map { String(format: "%02x", $0) }.joined() }
    }
}
