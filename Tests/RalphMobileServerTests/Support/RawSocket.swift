import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to the test server that sends exactly the bytes it is given (any `Host`, HTTP/1.0, half a head),
/// and reads exactly what comes back. Its calls block: use them inside ``offPool(_:)``.
final class RawSocket: Sendable {
    let fd: Int32

    /// Connects to 127.0.0.1:`port`.
    init(port: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw TestFailure("connect failed: \(reason)")
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends `text`; false when the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Reads until the server closes the connection or `timeout` passes; `closed` says which.
    func readUntilClosed(timeout: Double) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return (String(decoding: received, as: UTF8.self), false) }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left, 1) * 1000) + 1)
            if ready <= 0 { continue }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received += buffer[0..<n]
        }
    }

    /// Reads one response whose end is known from its `Content-Length`, or until `timeout`.
    func readResponse(timeout: Double = 10) -> String {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            let text = String(decoding: received, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let head = text[..<end.lowerBound].lowercased()
                if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                    let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)),
                    text.utf8.count - text[..<end.upperBound].utf8.count >= length
                {
                    return text
                }
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// What has arrived so far, without waiting; nil when nothing has.
    func available() -> String? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
    }

    /// Whether the server closes the connection within `timeout` (reading and dropping what it sends).
    func closes(within timeout: Double) -> Bool {
        readUntilClosed(timeout: timeout).closed
    }

    /// The status code of a response's text.
    static func status(_ response: String) -> Int {
        response.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
    }

    /// The head of a response's text, lowercased.
    static func head(_ response: String) -> String {
        String(response[..<(response.range(of: "\r\n\r\n")?.lowerBound ?? response.endIndex)]).lowercased()
    }

    /// The body of a response's text.
    static func body(_ response: String) -> String {
        response.range(of: "\r\n\r\n").map { String(response[$0.upperBound...]) } ?? ""
    }
}

/// Runs blocking work on a thread of its own, never on the few threads async code (and the server under test) runs on.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
