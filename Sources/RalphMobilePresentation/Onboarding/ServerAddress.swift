import Foundation

/// A server address as typed in onboarding, checked part by part so each mistake gets its own message.
///
/// Rules: `http` or `https`; a host (a name, an IPv4 address, or an IPv6 address in brackets); an optional port from 1
/// to 65535; an optional path (a server behind a reverse proxy), no query, no fragment, no user name or password.
/// Plain `http` is accepted only for addresses on this device or the local network (loopback, private and link-local
/// IP ranges, names without a dot, `.local` names): elsewhere the key would cross the internet in clear text.
public struct ServerAddress: Equatable, Sendable {
    public let scheme: String
    /// Lower-cased; an IPv6 address without its brackets.
    public let host: String
    public let port: Int?
    /// Empty, or starting with `/`, without a trailing slash.
    public let path: String

    /// `scheme://host[:port][path]`: what the client and the saved server use.
    public var url: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(hostPart)\(port.map { ":\($0)" } ?? "")\(path)"
    }

    /// Whether the host is this device or on the local network.
    public var isLocal: Bool { Self.isLocal(host: host) }

    /// A name for the saved server: `host:port`.
    public var suggestedName: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return hostPart + (port.map { ":\($0)" } ?? "")
    }

    /// Checks `text`; the address, or what is wrong with it.
    public static func parse(_ text: String) -> Result<ServerAddress, ServerAddressProblem> {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return .failure(.empty) }
        guard !trimmed.contains(where: \.isWhitespace) else { return .failure(.containsSpaces) }
        guard let separator = trimmed.range(of: "://") else {
            if let colon = trimmed.firstIndex(of: ":"), ["http", "https"].contains(trimmed[..<colon].lowercased()) {
                return .failure(.malformedScheme)
            }
            let guess = (Self.hostGuess(trimmed).map(Self.isLocal(host:)) ?? false) ? "http://" : "https://"
            return .failure(.missingScheme(suggestion: guess + trimmed))
        }
        let scheme = trimmed[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return .failure(.unsupportedScheme(scheme)) }
        let rest = trimmed[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let remainder = rest[authorityEnd...]
        guard !authority.contains("@") else { return .failure(.credentials) }

        let hostText: Substring
        let portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return .failure(.invalidHost(String(authority))) }
            hostText = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.isEmpty {
                portText = nil
            } else if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else {
                return .failure(.invalidHost(String(authority)))
            }
            guard isIPv6(hostText) else { return .failure(.invalidHost(String(hostText))) }
        } else {
            let colons = authority.filter { $0 == ":" }.count
            if colons > 1 { return .failure(.ipv6NeedsBrackets(String(authority))) }
            if let colon = authority.firstIndex(of: ":") {
                hostText = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                hostText = authority
                portText = nil
            }
        }
        guard !hostText.isEmpty else { return .failure(.missingHost) }
        let host = hostText.lowercased()
        if !host.contains(":") {
            guard isHostName(host) || isIPv4(host) else { return .failure(.invalidHost(host)) }
        }

        var port: Int?
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCIIDigit), let value = Int(portText), (1...65535).contains(value) else {
                return .failure(.invalidPort(String(portText)))
            }
            port = value
        }

        if remainder.contains("?") { return .failure(.hasQuery) }
        if remainder.contains("#") { return .failure(.hasFragment) }
        var path = String(remainder)
        while path.hasSuffix("/") { path.removeLast() }

        let address = ServerAddress(scheme: scheme, host: host, port: port, path: path)
        if scheme == "http", !address.isLocal { return .failure(.insecureRemote(host: host, suggestion: "https" + address.url.dropFirst(4))) }
        return .success(address)
    }

    // MARK: - Hosts

    /// The host part of an address typed without a scheme, if it has one.
    static func hostGuess(_ text: String) -> String? {
        let authority = text.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close]).lowercased()
        }
        let host = authority.split(separator: ":", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return host.isEmpty ? nil : host.lowercased()
    }

    /// This device, a private or link-local address, a name without a dot (resolved on the local network) or an mDNS
    /// `.local` name: what iOS's `NSAllowsLocalNetworking` also counts as local.
    public static func isLocal(host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        if host.contains(":") { return isLocalIPv6(host) }
        if let octets = ipv4Octets(host) {
            switch (octets[0], octets[1]) {
            case (127, _), (10, _), (192, 168), (169, 254): return true
            case (172, let b): return (16...31).contains(b)
            // Shared address space (RFC 6598), where Tailscale and other private overlays put their devices.
            case (100, let b): return (64...127).contains(b)
            default: return false
            }
        }
        if host.hasSuffix(".local") || host.hasSuffix(".home.arpa") { return true }
        return !host.contains(".")
    }

    static func isLocalIPv6(_ host: String) -> Bool {
        if host == "::1" { return true }
        guard let first = host.split(separator: ":", omittingEmptySubsequences: false).first, let value = UInt16(first, radix: 16) else {
            return false
        }
        // fe80::/10 link-local, fc00::/7 unique local.
        return value & 0xffc0 == 0xfe80 || value & 0xfe00 == 0xfc00
    }

    static func ipv4Octets(_ host: String) -> [Int]? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let octets = parts.compactMap { part -> Int? in
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCIIDigit) else { return nil }
            return Int(part).flatMap { (0...255).contains($0) ? $0 : nil }
        }
        return octets.count == 4 ? octets : nil
    }

    static func isIPv4(_ host: String) -> Bool { ipv4Octets(host) != nil }

    /// A DNS name: labels of letters, digits and hyphens (not first or last), 1 – 63 characters, 253 in all. A name of
    /// digits and dots only must be an IPv4 address.
    static func isHostName(_ host: String) -> Bool {
        guard host.count <= 253 else { return false }
        if host.allSatisfy({ $0.isASCIIDigit || $0 == "." }) { return false }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    /// Hex groups separated by colons, at most one `::`, at most 8 groups (no embedded IPv4, no zone).
    static func isIPv6(_ text: Substring) -> Bool {
        let host = text.lowercased()
        guard !host.isEmpty, host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" }) else { return false }
        let doubleColons = host.components(separatedBy: "::").count - 1
        guard doubleColons <= 1 else { return false }
        let groups = host.split(separator: ":", omittingEmptySubsequences: true)
        guard groups.allSatisfy({ $0.count <= 4 }) else { return false }
        return doubleColons == 1 ? groups.count <= 7 : groups.count == 8
    }
}

/// What is wrong with a typed server address, worded for a person (``description``).
public enum ServerAddressProblem: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case containsSpaces
    /// No `http://` or `https://`; the suggestion adds the likely one.
    case missingScheme(suggestion: String)
    /// `http:/host`, `https:host`: the `//` is missing.
    case malformedScheme
    case unsupportedScheme(String)
    case credentials
    case missingHost
    case invalidHost(String)
    case ipv6NeedsBrackets(String)
    case invalidPort(String)
    case hasQuery
    case hasFragment
    /// Plain http to an address on the internet.
    case insecureRemote(host: String, suggestion: String)

    public var description: String {
        switch self {
        case .empty: "Enter the server's address, for example http://192.168.1.20:8080."
        case .containsSpaces: "The address cannot contain spaces."
        case .missingScheme(let suggestion): "Start the address with http:// or https:// — for example \(suggestion)."
        case .malformedScheme: "The address must start with http:// or https:// (two slashes)."
        case .unsupportedScheme(let scheme): "Use http:// or https://, not \(scheme)://."
        case .credentials: "Leave the user name and password out of the address: the app sends an API key instead."
        case .missingHost: "The address needs a host: a computer name or an IP address, like 192.168.1.20."
        case .invalidHost(let host): "'\(host)' is not a valid host name or IP address."
        case .ipv6NeedsBrackets(let text): "Put an IPv6 address in brackets, with the port after them: http://[\(text)]:8080."
        case .invalidPort(let port): port.isEmpty ? "Add the port after the colon (the server uses 8080 unless told otherwise)." : "'\(port)' is not a port: use a number from 1 to 65535, like 8080."
        case .hasQuery: "Remove the part from '?': the address is only http(s)://host:port."
        case .hasFragment: "Remove the part from '#': the address is only http(s)://host:port."
        case .insecureRemote(let host, let suggestion):
            "Plain http:// is only allowed on this device and your local network; \(host) is on the internet, where the key would be sent unencrypted. Use \(suggestion)."
        }
    }

    /// An address that fixes the problem, when there is an obvious one.
    public var suggestion: String? {
        switch self {
        case .missingScheme(let suggestion), .insecureRemote(_, let suggestion): suggestion
        default: nil
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
