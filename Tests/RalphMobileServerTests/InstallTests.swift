import Foundation
import RalphAPI
import Testing
import TestSupport

@Suite("An installed release")
struct InstallTests {
    /// The repository's root (this file is Tests/RalphMobileServerTests/InstallTests.swift).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test("scripts/release and scripts/install put a server under a prefix that runs and serves the dashboard and the contract")
    func installAndRun() async throws {
        let tmp = TemporaryDirectory("rm-install")
        // The products this test run was built with (debug); CI's release build goes through the same scripts.
        let release = try await Products.run(
            executable: Self.repository + "/scripts/release", ["--bin-path", Products.directory.path, "--output", tmp.path + "/out"])
        #expect(release.status == 0, "\(release.stderr)")
        let directory = try #require(release.stdout.split(separator: "\n").last.map(String.init))
        #expect(directory == tmp.path + "/out/ralph-mobile-\(RalphMobileVersion.current)")

        let prefix = tmp.path + "/prefix"
        let install = try await Products.run(executable: Self.repository + "/scripts/install", ["--from", directory, "--prefix", prefix])
        #expect(install.status == 0, "\(install.stderr)")
        #expect(install.stdout.contains("Installed ralph-mobile \(RalphMobileVersion.current) under \(prefix)"))
        #expect(install.stdout.contains("\(prefix)/bin is not on your PATH"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: prefix + "/bin/ralph-mobile-server") == "../lib/ralph-mobile/ralph-mobile-server")
        #expect(FileManager.default.fileExists(atPath: prefix + "/lib/ralph-mobile/ralph-mobile_RalphMobileServer.resources/web/index.html"))
        #expect(FileManager.default.fileExists(atPath: prefix + "/share/doc/ralph-mobile/operations.md"))

        let server = prefix + "/bin/ralph-mobile-server"
        let version = try await Products.run(executable: server, ["--version"])
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == RalphMobileVersion.current)
        let client = try await Products.run(executable: prefix + "/bin/ralph-mobile", ["--version"])
        #expect(client.status == 0 && client.stdout.contains(RalphMobileVersion.current))

        // The installed server, run through its link on port 0: the dashboard and the contract come from lib/ralph-mobile.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: server)
        process.arguments = ["--port", "0", "--data-dir", tmp.path + "/data", "--workspace", tmp.subdirectory("workspace")]
        var environment = ProcessInfo.processInfo.environment
        environment["RALPH_MOBILE_API_KEY"] = nil
        environment["XDG_CONFIG_HOME"] = tmp.path + "/config"
        process.environment = environment
        let log = Locked("")
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        err.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            log.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        let port = Locked<Int?>(nil)
        try await eventually(20, "the installed server to log its address") {
            guard let range = log.value.range(of: "listening on http://127.0.0.1:") else { return false }
            port.withLock { $0 = Int(log.value[range.upperBound...].prefix { $0.isNumber }) }
            return port.value != nil
        }
        let base = "http://127.0.0.1:\(try #require(port.value))"
        let page = try await HTTP.request(base + "/")
        #expect(page.status == 200 && page.text.contains("<html"), "\(page.status) \(page.text.prefix(200))")
        let contract = try await HTTP.request(base + "/openapi.json")
        #expect(contract.status == 200, "\(contract.text.prefix(200))")
        #expect((contract.object as? [String: Any])?["openapi"] != nil)
        process.terminate()
        let deadline = Date().addingTimeInterval(15)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!process.isRunning && process.terminationStatus == 0, "SIGTERM stops the installed server cleanly")

        // Its service runs the installed executable (the real path, where its resources are).
        let unit = try await Products.run(
            executable: server, ["service", "install", "--user", "--print"], environment: ["XDG_CONFIG_HOME": tmp.path + "/config"])
        #expect(unit.stdout.contains("ExecStart=\(prefix)/lib/ralph-mobile/ralph-mobile-server\n"), "\(unit.stdout)\(unit.stderr)")

        // A directory that is not a release is refused, and nothing is installed.
        let wrong = try await Products.run(executable: Self.repository + "/scripts/install", ["--from", tmp.path, "--prefix", tmp.path + "/other"])
        #expect(wrong.status == 1 && wrong.stderr.contains("is not a release directory made by scripts/release"))
        #expect(!FileManager.default.fileExists(atPath: tmp.path + "/other"))
    }
}
