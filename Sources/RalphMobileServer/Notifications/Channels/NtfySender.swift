import Foundation
import RalphAPI

/// Publishes the message to an ntfy topic with ntfy's JSON publishing (`POST` to the server's root with a `topic`
/// field), so titles and actions need no header encoding.
///
/// Buttons are ntfy `http` actions that POST `{"token": …}` to the server's public action URL (the token is the only
/// credential they carry); a tap on the notification opens the dashboard path. Without `--public-url` the server
/// cannot be called back, so the messages carry no buttons (the settings say so).
struct NtfySender: NotificationSender {
    let http: PushHTTP
    /// The server's public URL (`--public-url`), for the click link and the buttons.
    let publicURL: String?

    func send(_ message: NotificationMessage, to device: StoredDevice, urgent: Bool) async -> DeliveryOutcome {
        guard let topic = device.registration.ntfy, let (root, name) = Self.split(topic.url) else {
            return .failed(status: nil, detail: "the ntfy registration has no valid topic URL")
        }
        var object: [String: JSONValue] = [
            "topic": .string(name),
            "title": .string(message.title),
            "message": .string(message.body.isEmpty ? message.title : message.body),
            "priority": .int(message.quiet == true ? 1 : urgent ? 4 : 3),
            "tags": .array([.string(message.kind.rawValue)]),
        ]
        if let publicURL {
            object["click"] = .string(publicURL + message.path)
            let buttons: [JSONValue] = message.actions.filter { !$0.input }.map { action in
                let body = (try? String(decoding: WireJSON.encode(NotificationActionRequest(token: action.token)), as: UTF8.self)) ?? ""
                return .object(JSONObject([
                    ("action", .string("http")), ("label", .string(action.title)), ("url", .string(action.url)), ("method", .string("POST")),
                    ("headers", .object(JSONObject([("Content-Type", .string("application/json"))]))), ("body", .string(body)),
                    ("clear", .bool(true)),
                ]))
            }
            if !buttons.isEmpty { object["actions"] = .array(buttons) }
        }
        var headers = [("Content-Type", "application/json"), ("User-Agent", "ralph-mobile-server")]
        if let token = topic.token { headers.append(("Authorization", "Bearer \(token)")) }
        let body: [UInt8]
        do {
            body = Array(try WireJSON.encode(JSONValue.object(JSONObject(object.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))))
        } catch {
            return .failed(status: nil, detail: "could not encode the message: \(error)")
        }
        return await http.deliver(root, headers: headers, body: body)
    }

    /// `https://ntfy.sh/mytopic` → (`https://ntfy.sh`, `mytopic`); a server under a path keeps it.
    static func split(_ url: String) -> (root: String, topic: String)? {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "https" || scheme == "http", parsed.host != nil,
            let slash = url.lastIndex(of: "/")
        else { return nil }
        let topic = String(url[url.index(after: slash)...])
        let root = String(url[..<slash])
        guard !topic.isEmpty, topic.count <= 64, topic.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }),
            root.count > scheme.count + 3
        else { return nil }
        return (root, topic)
    }
}
