import Foundation
import NIOHTTP1
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 GET over a plain socket whose receive buffer is fixed at a few kilobytes before it connects
/// (which turns off the kernel's autotuning): a client that stops reading holds almost nothing, so the server's writes
/// back up at once. Reads the response head, then the body, decoding chunked transfer coding.
final class PausedSocket: Sendable {
    private let fd: Int32
    private let state = Mutex(State())

    private struct State {
        var buffer: [UInt8] = []
        var chunked = false
        /// Bytes left in the current chunk; nil between chunks.
        var chunkLeft: Int?
        var ended = false
    }

    init(url: String, receiveBuffer: Int32 = 4096) throws {
        guard let parsed = URL(string: url), let host = parsed.host, let port = parsed.port else {
            throw TestFailure("not an http URL with a port: \(url)")
        }
        let target = parsed.path + (parsed.query.map { "?" + $0 } ?? "")
        fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        var size = receiveBuffer
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw TestFailure("connect to \(host):\(port): errno \(errno)")
        }
        let request = "GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nAccept: text/event-stream\r\nRalph-Stream-End: close\r\n\r\n"
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            Glibc.close(fd)
            throw TestFailure("could not send the request")
        }
    }

    /// Reads up to the end of the response head: the status and headers.
    func readHead() throws -> (Int, HTTPHeaders) {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            let found = state.withLock { state -> Int? in
                guard state.buffer.count >= 4 else { return nil }
                return (0...(state.buffer.count - 4)).first { state.buffer[$0..<($0 + 4)].elementsEqual(separator) }
            }
            if let end = found {
                return try state.withLock { state in
                    let head = String(decoding: state.buffer[..<end], as: UTF8.self)
                    state.buffer.removeFirst(end + 4)
                    var lines = head.components(separatedBy: "\r\n")
                    let statusLine = lines.removeFirst().split(separator: " ")
                    guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw TestFailure("bad status line: \(head)") }
                    var headers = HTTPHeaders()
                    for line in lines {
                        guard let colon = line.firstIndex(of: ":") else { continue }
                        headers.add(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                    }
                    state.chunked = headers["transfer-encoding"].contains { $0.lowercased().contains("chunked") }
                    return (status, headers)
                }
            }
            guard let more = try receive() else { throw TestFailure("closed before the response head") }
            state.withLock { $0.buffer += more }
        }
    }

    /// The next piece of the body, or nil at its end.
    func readBody() throws -> [UInt8]? {
        while true {
            if let piece = try state.withLock({ try Self.take(&$0) }) { return piece }
            if state.withLock({ $0.ended }) { return nil }
            guard let more = try receive() else {
                return state.withLock { state in
                    state.ended = true
                    return nil
                }
            }
            state.withLock { $0.buffer += more }
        }
    }

    /// Decoded body bytes already buffered: an empty array when more must be read, nil when nothing is buffered.
    private static func take(_ state: inout State) throws -> [UInt8]? {
        guard !state.ended else { return nil }
        guard state.chunked else {
            guard !state.buffer.isEmpty else { return nil }
            defer { state.buffer.removeAll() }
            return state.buffer
        }
        var out: [UInt8] = []
        while true {
            if let left = state.chunkLeft {
                if left == 0 {
                    // The CRLF after a chunk's data.
                    guard state.buffer.count >= 2 else { break }
                    state.buffer.removeFirst(2)
                    state.chunkLeft = nil
                    continue
                }
                guard !state.buffer.isEmpty else { break }
                let n = min(left, state.buffer.count)
                out += state.buffer[..<n]
                state.buffer.removeFirst(n)
                state.chunkLeft = left - n
                continue
            }
            guard let lineEnd = (0..<max(state.buffer.count - 1, 0)).first(where: { state.buffer[$0] == 0x0D && state.buffer[$0 + 1] == 0x0A }) else { break }
            let sizeText = String(decoding: state.buffer[..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { throw TestFailure("bad chunk size: \(sizeText)") }
            state.buffer.removeFirst(lineEnd + 2)
            if size == 0 {
                state.ended = true
                break
            }
            state.chunkLeft = size
        }
        return out.isEmpty ? nil : out
    }

    /// Bytes read from the socket (blocking), or nil once the peer closed it.
    private func receive() throws -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: 65536)
        let n = bytes.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 {
            if errno == EINTR { return [] }
            throw TestFailure("recv: errno \(errno)")
        }
        return n == 0 ? nil : Array(bytes[..<n])
    }

    /// Ends reading (a blocked read returns at once).
    func shutdown() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    func close() { Glibc.close(fd) }
}
