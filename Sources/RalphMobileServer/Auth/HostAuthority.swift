/// A host and optional port as HTTP writes them in `Host` and in an origin: `localhost:8080`, `127.0.0.1`,
/// `[::1]:8080`. The host is lowercased; an IPv6 address keeps its brackets.
struct HostAuthority: Equatable, Sendable {
    var host: String
    var port: Int?

    /// Parses `Host`-style text; nil when it is not a plain host with an optional numeric port.
    init?(_ text: some StringProtocol) {
        let text = Substring(text)
        guard !text.isEmpty, !text.contains(where: { $0 == "/" || $0 == "@" || $0 == "?" || $0 == "#" || $0.isWhitespace }) else { return nil }
        let hostPart: Substring
        let portPart: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            hostPart = text[...close]
            let rest = text[text.index(after: close)...]
            if rest.isEmpty {
                portPart = nil
            } else {
                guard rest.hasPrefix(":") else { return nil }
                portPart = rest.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            guard !hostPart.contains(":") else { return nil }
        } else {
            hostPart = text
            portPart = nil
        }
        guard !hostPart.isEmpty, hostPart != "[]" else { return nil }
        host = hostPart.lowercased()
        if let portPart {
            guard !portPart.isEmpty, portPart.count <= 5, portPart.allSatisfy(\.isASCII), let number = Int(portPart), number <= 65535 else { return nil }
            port = number
        } else {
            port = nil
        }
    }

    /// The authority of a serialized origin (`http://localhost:8080`), with the scheme's default port filled in;
    /// nil for `null` and anything that is not http or https.
    static func ofOrigin(_ origin: String) -> (scheme: String, authority: HostAuthority)? {
        let lowered = origin.lowercased()
        let scheme: String
        if lowered.hasPrefix("http://") {
            scheme = "http"
        } else if lowered.hasPrefix("https://") {
            scheme = "https"
        } else {
            return nil
        }
        guard var authority = HostAuthority(origin.dropFirst(scheme.count + 3)) else { return nil }
        if authority.port == nil { authority.port = scheme == "https" ? 443 : 80 }
        return (scheme, authority)
    }

    /// How a bind address is written as a host: IPv6 in brackets.
    static func hostName(ofBindAddress address: String) -> String {
        let lowered = address.lowercased()
        return lowered.contains(":") && !lowered.hasPrefix("[") ? "[\(lowered)]" : lowered
    }
}
