import Foundation  // and, through it, the C library (Glibc or Darwin)

// A minimal HTTP/1.1 client on a blocking socket: no client library in the measured path.

final class HTTPConnection {
    let fd: Int32
    private var pending: [UInt8] = []

    init?(port: UInt16) {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else {
            close(s)
            return nil
        }
        var one: Int32 = 1
        setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        fd = s
    }

    deinit { close(fd) }

    /// GET on a kept-alive connection; returns the status and body, or nil if the connection failed.
    func get(_ path: String) -> (status: Int, body: [UInt8])? {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n".utf8)
        let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { return nil }
        guard let headerEnd = readUntil(Array("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: pending[0..<headerEnd], as: UTF8.self)
        pending.removeFirst(headerEnd + 4)
        let headLines = head.split(separator: "\r\n")
        guard let statusLine = headLines.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else { return nil }
        var length: Int?
        var chunked = false
        for line in headLines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.count == 2 else { continue }
            if parts[0] == "content-length" { length = Int(parts[1]) }
            if parts[0] == "transfer-encoding", parts[1].contains("chunked") { chunked = true }
        }
        if let length {
            guard fill(length) else { return nil }
            let body = Array(pending[0..<length])
            pending.removeFirst(length)
            return (status, body)
        }
        guard chunked else { return nil }
        var body: [UInt8] = []
        while true {
            guard let lineEnd = readUntil(Array("\r\n".utf8)) else { return nil }
            let sizeText = String(decoding: pending[0..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
            pending.removeFirst(lineEnd + 2)
            guard fill(size + 2) else { return nil }
            body.append(contentsOf: pending[0..<size])
            pending.removeFirst(size + 2)
            if size == 0 { return (status, body) }
        }
    }

    private func receive() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        pending.append(contentsOf: chunk[0..<n])
        return true
    }

    private func fill(_ count: Int) -> Bool {
        while pending.count < count { guard receive() else { return false } }
        return true
    }

    private func readUntil(_ marker: [UInt8]) -> Int? {
        var searchFrom = 0
        while true {
            if pending.count >= marker.count {
                var i = searchFrom
                while i + marker.count <= pending.count {
                    if pending[i] == marker[0], Array(pending[i..<(i + marker.count)]) == marker { return i }
                    i += 1
                }
                searchFrom = max(0, pending.count - marker.count + 1)
            }
            guard receive() else { return nil }
        }
    }
}
