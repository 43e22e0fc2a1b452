import Foundation

#if canImport(Glibc)
import Glibc
#endif

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A child process whose output is collected; `stop()` ends it (SIGTERM, then SIGKILL).
final class Child: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var output = ""
    let name: String

    init(name: String, executable: String, arguments: [String], directory: String? = nil) {
        self.name = name
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            let text = String(decoding: data, as: UTF8.self)
            self.lock.lock()
            self.output += text
            if self.output.count > 1_000_000 { self.output = String(self.output.suffix(200_000)) }
            self.lock.unlock()
        }
    }

    var log: String {
        lock.lock()
        defer { lock.unlock() }
        return output
    }

    var pid: Int32 { process.processIdentifier }

    func start() throws {
        try process.run()
        Children.shared.add(self)
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Waits for a regular expression's first capture group in the output.
    func waitFor(pattern: String, timeout: Double) throws -> String {
        let regex = try NSRegularExpression(pattern: pattern)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = log
            if let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                let range = Range(match.range(at: 1), in: text)
            {
                return String(text[range])
            }
            if !process.isRunning { throw BenchError("\(name) exited (status \(process.terminationStatus)):\n\(text.suffix(2000))") }
            usleep(20_000)
        }
        throw BenchError("\(name) did not print /\(pattern)/ within \(timeout) s:\n\(log.suffix(2000))")
    }
}

/// Every child started, so they are stopped on any exit path (including SIGINT/SIGTERM to the bench).
final class Children: @unchecked Sendable {
    static let shared = Children()
    private let lock = NSLock()
    private var children: [Child] = []
    func add(_ child: Child) { lock.lock(); children.append(child); lock.unlock() }
    func stopAll() {
        lock.lock()
        let all = children
        children = []
        lock.unlock()
        for child in all.reversed() { child.stop() }
    }
}

/// VmRSS of a process in KB.
func residentKB(pid: Int32) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }
    return nil
}

/// Raises the soft RLIMIT_NOFILE to the hard limit; children inherit it.
func raiseFileLimit() -> Int {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    return Int(limit.rlim_cur)
}

/// A port free right now on 127.0.0.1 (for nginx, which cannot listen on port 0 and report it).
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw BenchError("socket: \(errno)") }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = 0
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
    guard bound == 0 else { throw BenchError("bind: \(errno)") }
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// A blocking HTTP/1.1 connection with keep-alive: the nchan publisher and small API calls.
final class BlockingHTTP {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw BenchError("cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
    }

    deinit { close(fd) }

    /// Sends one request; `body` builds the payload right before the bytes go out (the publisher's stamp is in it).
    func request(method: String, path: String, body: (() -> [UInt8])? = nil) throws -> (status: Int, body: [UInt8]) {
        let payload = body?() ?? []
        let type = payload.first == UInt8(ascii: "{") ? "Content-Type: application/json\r\n" : ""
        var bytes = Array("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(type)Content-Length: \(payload.count)\r\n\r\n".utf8)
        bytes += payload
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw BenchError("send failed: errno \(errno)") }
            sent += n
        }
        // Headers.
        var headerEnd: Int?
        while headerEnd == nil {
            if let range = findCRLFCRLF() { headerEnd = range } else { try fill() }
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
        buffer.removeFirst(headerEnd! + 4)
        let lines = head.split(separator: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var length = 0
        var chunked = false
        for line in lines.dropFirst() {
            let lower = line.lowercased()
            if lower.hasPrefix("content-length:") { length = Int(lower.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0 }
            if lower.hasPrefix("transfer-encoding:") && lower.contains("chunked") { chunked = true }
        }
        var result: [UInt8] = []
        if chunked {
            while true {
                var lineEnd: Int?
                while lineEnd == nil {
                    if let i = findCRLF() { lineEnd = i } else { try fill() }
                }
                let size = Int(String(decoding: buffer[..<lineEnd!], as: UTF8.self).split(separator: ";")[0], radix: 16) ?? 0
                buffer.removeFirst(lineEnd! + 2)
                while buffer.count < size + 2 { try fill() }
                result += buffer[..<size]
                buffer.removeFirst(size + 2)
                if size == 0 { break }
            }
        } else {
            while buffer.count < length { try fill() }
            result = Array(buffer[..<length])
            buffer.removeFirst(length)
        }
        return (status, result)
    }

    private func findCRLFCRLF() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }

    private func findCRLF() -> Int? {
        guard buffer.count >= 2 else { return nil }
        for i in 0...(buffer.count - 2) where buffer[i] == 13 && buffer[i + 1] == 10 { return i }
        return nil
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw BenchError("connection closed while reading a response (errno \(errno))") }
        buffer += chunk[..<n]
    }
}
