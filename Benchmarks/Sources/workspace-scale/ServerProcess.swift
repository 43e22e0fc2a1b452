import Foundation  // and, through it, the C library (Glibc or Darwin)

/// The ralph-mobile-server being measured, as a child process whose output is collected (for its port and for
/// the error message when it fails).
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    let output = Pipe()
    private let lock = NSLock()
    private var text = ""
    private(set) var startedAt: Double = 0

    init(server: String, workspace: String, dataDir: String) {
        process.executableURL = URL(fileURLWithPath: server)
        process.arguments = ["--port", "0", "--workspace", workspace, "--data-dir", dataDir, "--log-level", "info"]
        process.standardOutput = output
        process.standardError = output
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "RALPH_MOBILE_API_KEY")
        process.environment = environment
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.lock()
            self.text += String(decoding: data, as: UTF8.self)
            self.lock.unlock()
        }
        startedAt = monotonic()
        do { try process.run() } catch { fail("cannot start \(server): \(error)") }
    }

    var log: String {
        lock.lock()
        defer { lock.unlock() }
        return text
    }

    /// The port from `listening on http://127.0.0.1:<port>`.
    func port() -> UInt16? {
        guard let range = log.range(of: "listening on http://127.0.0.1:") else { return nil }
        let digits = log[range.upperBound...].prefix { $0.isNumber }
        return UInt16(digits)
    }

    /// VmRSS in kB from /proc/<pid>/status.
    func rssKB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = monotonic() + 10
        while process.isRunning, monotonic() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
    }
}
