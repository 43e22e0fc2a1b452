import Foundation
import RalphAPI
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// HTTP/1.1 over a plain socket, sending the request target byte for byte (no client-side `..` normalisation).
enum RawHTTP {
    static func request(port: Int, method: String = "GET", target: String, body: String? = nil) throws -> (status: Int, body: String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { throw TestFailure("connect failed") }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        let request = Array((head + "\r\n" + (body ?? "")).utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            response += buffer[0..<n]
        }
        let text = String(decoding: response, as: UTF8.self)
        let status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let payload = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, payload)
    }
}

@Suite("Path traversal: nothing outside the workspace roots is ever served or written")
struct TraversalTests {
    @Test("a traversal corpus against every path-taking route")
    func corpus() async throws {
        let l = try await LibraryHarness.start()
        defer { l.h.stop() }
        let outside = l.h.tmp.subdirectory("outside")
        let marker = "SECRET-\(UUID().uuidString)"
        for name in ["secret.yml", "secret.yaml", "secret.md", "SKILL.md"] { Fixture.write("\(marker)\n", to: outside + "/" + name) }
        try FileManager.default.createDirectory(atPath: outside + "/.ralph/agent", withIntermediateDirectories: true)
        Fixture.write("\(marker)\n", to: outside + "/.ralph/agent/memories.md")
        // Symbolic links inside the workspace that point out.
        try FileManager.default.createSymbolicLink(atPath: l.ws + "/presets/evil.yml", withDestinationPath: outside + "/secret.yml")
        try FileManager.default.createSymbolicLink(atPath: l.ws + "/presets/evil-dir", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: l.ws + "/prompts/evil.md", withDestinationPath: outside + "/secret.md")
        try FileManager.default.createSymbolicLink(atPath: l.ws + "/linked", withDestinationPath: outside)
        let before = snapshot(of: outside)

        let long = String(repeating: "a", count: 5000)
        let escapes = [
            "../outside/secret", "..%2Foutside%2Fsecret", "%2e%2e/outside/secret", "%2E%2E%2Foutside%2Fsecret", "presets/../../outside/secret",
            "presets/..%2F..%2Foutside%2Fsecret", "prompts/../../outside/secret", "/\(outside.dropFirst())/secret", "%2F\(outside.dropFirst().replacingOccurrences(of: "/", with: "%2F"))%2Fsecret",
            "presets/evil", "presets/evil-dir/secret", "prompts/evil", "presets/" + String(repeating: "../", count: 40) + "etc/passwd",
            "presets/secret%00", "presets/\(long)", "presets/%ZZ", "....//....//outside/secret",
        ]
        var requests: [(String, String, String?)] = []
        for escape in escapes {
            requests.append(("GET", "/api/configs/\(escape).yml", nil))
            requests.append(("GET", "/api/configs/\(escape).yaml", nil))
            requests.append(("GET", "/api/prompts/\(escape).md", nil))
        }
        for name in ["..", "..%2F..%2Foutside%2FSKILL", "%2e%2e", long, "deploy%00", "..%2Foutside"] {
            requests.append(("GET", "/api/skills/\(name)", nil))
            requests.append(("POST", "/api/skills/\(name)/load", nil))
            requests.append(("PUT", "/api/tasks/\(name)", #"{"status":"closed"}"#))
            requests.append(("GET", "/api/loops/\(name)", nil))
            requests.append(("POST", "/api/loops/\(name)/merge", nil))
            requests.append(("POST", "/api/loops/\(name)/discard", nil))
            requests.append(("GET", "/api/sessions/\(name)/scratchpad", nil))
            requests.append(("POST", "/api/sessions/\(name)/emit", #"{"topic":"x"}"#))
        }
        let workspaces = ["..", "../outside", "%2e%2e%2Foutside", outside, "linked", "linked/.ralph", "\(long)", "x%00y", "/etc"]
        for ws in workspaces {
            let q = "?workspace=\(ws.hasPrefix("/") ? ws.replacingOccurrences(of: "/", with: "%2F") : ws)"
            for path in ["/api/configs", "/api/prompts", "/api/presets", "/api/hats", "/api/skills", "/api/memories", "/api/tasks", "/api/loops", "/api/merge-queue"] {
                requests.append(("GET", path + q, nil))
            }
            requests.append(("GET", "/api/configs/secret.yml\(q)", nil))
            requests.append(("POST", "/api/config/export\(q)", nil))
            requests.append(("POST", "/api/memories/export\(q)", nil))
            requests.append(("PUT", "/api/memories\(q)", #"{"content":"overwritten"}"#))
            requests.append(("POST", "/api/tasks\(q)", #"{"title":"planted"}"#))
            requests.append(("POST", "/api/config/import\(q)", #"{"content":"a: 1"}"#))
            requests.append(("POST", "/api/loops\(q)", #"{"prompt":"planted"}"#))
        }
        requests.append(("POST", "/api/loops", #"{"prompt":"p","config_path":"../outside/secret.yml"}"#))
        requests.append(("POST", "/api/loops", #"{"prompt":"p","config_path":"presets/evil.yml"}"#))
        requests.append(("POST", "/api/sessions", #"{"config_path":"presets/evil.yml","prompt":"p"}"#))
        requests.append(("POST", "/api/sessions", #"{"config_path":"ralph.yml","prompt":"p","working_dir":"linked"}"#))
        requests.append(("GET", "/api/memories?session=..%2F..", nil))

        var served: [String] = []
        for (method, target, body) in requests {
            let (status, text) = try RawHTTP.request(port: l.h.server.port, method: method, target: target, body: body)
            #expect(status >= 400, "\(method) \(target.prefix(120)) → \(status) \(text.prefix(160))")
            if text.contains(marker) { served.append("\(method) \(target.prefix(120))") }
        }
        #expect(served.isEmpty, "served content from outside the roots: \(served)")
        #expect(snapshot(of: outside) == before, "nothing outside the roots was written")
        #expect(requests.count > 200)
    }

    /// Every file under `dir` with its content.
    func snapshot(of dir: String) -> [String: String] {
        var result: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: dir)
        while let path = enumerator?.nextObject() as? String {
            result[path] = (try? String(contentsOfFile: dir + "/" + path, encoding: .utf8)) ?? "<dir>"
        }
        return result
    }
}
