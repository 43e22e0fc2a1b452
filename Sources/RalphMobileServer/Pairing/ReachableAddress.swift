import Foundation
import RalphAPI
import RalphFiles
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a phone can reach this server: the base URL a pairing code's QR code points at.
public enum ReachableAddress {
    /// A base URL and, when it is likely not reachable from a phone, why.
    public struct Guess: Sendable, Equatable {
        public var url: String
        public var warning: String?

        public init(url: String, warning: String?) {
            self.url = url
            self.warning = warning
        }
    }

    /// The server's address as a phone on the network sees it, from the address it listens on: a wildcard address
    /// (`0.0.0.0`, `::`) becomes one of the machine's own non-loopback addresses (``interfaceAddresses()``, IPv4 first);
    /// a loopback address stays, with a warning that no phone can reach it.
    public static func guess(boundHost: String, port: Int, scheme: String = "http") -> Guess {
        if ServerConfiguration.isLoopback(boundHost) {
            return Guess(
                url: "\(scheme)://\(hostPart(boundHost)):\(port)",
                warning: "the server listens on loopback only (\(boundHost)), so a phone cannot reach it: start it with --bind-all, "
                    + "or give the address the phone uses (--url)")
        }
        if boundHost == "0.0.0.0" || boundHost == "::" || boundHost == "[::]" || boundHost.isEmpty {
            guard let address = interfaceAddresses().first else {
                return Guess(
                    url: "\(scheme)://127.0.0.1:\(port)",
                    warning: "this machine has no network address but loopback, so a phone cannot reach it; give the address the phone uses (--url)")
            }
            return Guess(url: "\(scheme)://\(hostPart(address)):\(port)", warning: nil)
        }
        return Guess(url: "\(scheme)://\(hostPart(boundHost)):\(port)", warning: nil)
    }

    /// The machine's up, non-loopback interface addresses: IPv4 ones first, then global IPv6 ones (link-local IPv6
    /// addresses need a zone a URL cannot carry portably, so they are left out).
    public static func interfaceAddresses() -> [String] {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0, let first = head else { return [] }
        defer { freeifaddrs(head) }
        var v4: [String] = []
        var v6: [String] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0, let address = entry.pointee.ifa_addr else { continue }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                var sin = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
                guard inet_ntop(AF_INET, &sin.sin_addr, &buffer, socklen_t(buffer.count)) != nil else { continue }
                v4.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            case AF_INET6:
                var sin6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }
                let firstByte = withUnsafeBytes(of: &sin6.sin6_addr) { $0[0] }
                let secondByte = withUnsafeBytes(of: &sin6.sin6_addr) { $0[1] }
                // fe80::/10 is link-local.
                if firstByte == 0xfe && secondByte & 0xc0 == 0x80 { continue }
                guard inet_ntop(AF_INET6, &sin6.sin6_addr, &buffer, socklen_t(buffer.count)) != nil else { continue }
                v6.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            default:
                continue
            }
        }
        return v4 + v6
    }

    /// An IPv6 address in brackets, as a URL needs it; any other host as it is.
    static func hostPart(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// A base URL someone typed (`--url`, the `url` field): `http` or `https`, a host, an optional port and path, no
    /// query or fragment; returned without a trailing slash. Throws a sentence saying what is wrong.
    public static func validatedBase(_ text: String) throws(StartupError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.utf8.count <= 512, let components = URLComponents(string: trimmed),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else {
            throw StartupError("'\(text.prefix(80))' is not an http:// or https:// address like http://192.168.1.20:8080")
        }
        guard components.query == nil, components.fragment == nil, components.user == nil, components.password == nil else {
            throw StartupError("the server's address must not carry a user, a query or a fragment: '\(text.prefix(80))'")
        }
        var base = trimmed
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }

    /// The pairing page's URL for `code` on the server at `base`: the code goes in the fragment, which browsers never
    /// send to a server or a proxy (no request log holds it) nor put in a `Referer`.
    public static func pairingURL(base: String, code: String) -> String {
        base + "/pair#code=" + code
    }
}

/// `<data-dir>/server-address.json` (0600): where the server of a data directory listens, written when it starts
/// listening, so that `ralph-mobile-server pair` — another process — can put that address in its QR code.
public struct ServerAddressRecord: Codable, Sendable, Equatable {
    public var host: String
    public var port: Int
    public var pid: Int32
    /// The server shares its keys in a cluster's database.
    public var cluster: Bool

    public init(host: String, port: Int, pid: Int32, cluster: Bool) {
        self.host = host
        self.port = port
        self.pid = pid
        self.cluster = cluster
    }

    /// The file in `dataDirectory`.
    public static func path(in dataDirectory: String) -> String { dataDirectory + "/server-address.json" }

    /// Writes the record atomically, mode 0600. Blocking.
    public func write(to dataDirectory: String) throws {
        let path = Self.path(in: dataDirectory)
        let temp = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temp, contents: try WireJSON.encodePretty(self), attributes: [.posixPermissions: 0o600]) else {
            throw StartupError("cannot create \(temp)")
        }
        guard rename(temp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw StartupError("cannot replace \(path): \(reason)")
        }
    }

    /// The record of a server that is still running (its process exists), nil when there is none or it has stopped.
    public static func running(in dataDirectory: String) -> ServerAddressRecord? {
        guard let bytes = FileSystem.readSmallFile(path(in: dataDirectory), limit: 64 << 10),
            let record = try? WireJSON.decode(ServerAddressRecord.self, from: Data(bytes))
        else { return nil }
        // Signal 0 checks the process exists; EPERM means it exists under another user.
        guard record.pid > 0, kill(record.pid, 0) == 0 || errno == EPERM else { return nil }
        return record
    }
}

/// The port the server listens on, known once it is listening (it may have been asked for port 0).
final class ListeningPort: Sendable {
    private let port = Mutex<Int?>(nil)

    /// The bound port, or `configured` before the server listens.
    func current(or configured: Int) -> Int { port.withLock { $0 } ?? configured }

    func set(_ value: Int) { port.withLock { $0 = value } }
}
