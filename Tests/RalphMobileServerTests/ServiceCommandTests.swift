import Foundation
import RalphAPI
import Testing
import TestSupport

/// The mode bits of a file.
func fileMode(_ path: String) throws -> Int {
    try #require((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
}

@Suite("service install and uninstall")
struct ServiceCommandTests {
    static let systemdAnalyze = "/usr/bin/systemd-analyze"
    static let strongKey = ConfigurationFileTests.strongKey

    /// A home of its own: $HOME and $XDG_CONFIG_HOME in a temporary directory, and a system root for system-wide units.
    struct ServiceHome {
        let tmp = TemporaryDirectory("rm-service")
        var config: String { tmp.path + "/config" }
        var unit: String { config + "/systemd/user/ralph-mobile-server.service" }
        var secrets: String { config + "/ralph-mobile/server.env" }
        var environment: [String: String] {
            ["HOME": tmp.path + "/home", "XDG_CONFIG_HOME": config, "RALPH_MOBILE_SERVICE_ROOT": tmp.path + "/root",
             "RALPH_MOBILE_DATA_DIR": "", "RALPH_MOBILE_DATABASE_URL": ""]
        }

        func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> Products.Output {
            try await Executable.run(["service"] + arguments, environment: environment.merging(extra) { _, given in given })
        }
    }

    @Test("install --user writes a unit for the flags given, with how to start it; it refuses to overwrite; uninstall removes it")
    func installAndUninstall() async throws {
        let home = ServiceHome()
        let workspace = home.tmp.subdirectory("code")
        let installed = try await home.run(["install", "--user", "--port", "9300", "--workspace", workspace, "--no-ralph-rpc"])
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(installed.stdout.contains("Wrote \(home.unit)"))
        #expect(installed.stdout.contains("systemctl --user daemon-reload && systemctl --user enable --now ralph-mobile-server"))
        #expect(installed.stdout.contains("loginctl enable-linger"))
        #expect(installed.stdout.contains("journalctl --user -u ralph-mobile-server"))
        let unit = try String(contentsOfFile: home.unit, encoding: .utf8)
        #expect(unit.contains("\nExecStart=\(Executable.path) --port=9300 --workspace=\(workspace) --no-ralph-rpc\n"), "\(unit)")
        #expect(unit.contains("\nWorkingDirectory=\(FileManager.default.currentDirectoryPath)\n"))
        #expect(unit.contains("\nRestart=on-failure\n") && unit.contains("\nWantedBy=default.target\n"))
        #expect(unit.contains("\nEnvironment=\"PATH="))
        #expect(unit.contains("\nTimeoutStopSec=25\n"), "--stop-grace 10 and 15 s more")
        #expect(!unit.contains("EnvironmentFile"), "no secret, no secrets file")
        #expect(try fileMode(home.unit) == 0o644)
        #expect(!FileManager.default.fileExists(atPath: home.secrets))

        let again = try await home.run(["install", "--user", "--port", "9301"])
        #expect(again.status == 1 && again.stderr.contains("\(home.unit) already exists: add --force"), "\(again.stderr)")
        #expect(try String(contentsOfFile: home.unit, encoding: .utf8) == unit, "the refused install changed nothing")
        let forced = try await home.run(["install", "--user", "--force", "--port", "9301"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try String(contentsOfFile: home.unit, encoding: .utf8).contains("--port=9301"))

        // Enabled (systemctl enable links it from default.target.wants): uninstall says to disable it first.
        let wants = home.config + "/systemd/user/default.target.wants"
        try FileManager.default.createDirectory(atPath: wants, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: wants + "/ralph-mobile-server.service", withDestinationPath: home.unit)
        let enabled = try await home.run(["uninstall", "--user"])
        #expect(enabled.status == 1 && enabled.stderr.contains("systemctl --user disable --now ralph-mobile-server"), "\(enabled.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.unit))
        try FileManager.default.removeItem(atPath: wants + "/ralph-mobile-server.service")

        let removed = try await home.run(["uninstall", "--user"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.contains("Removed \(home.unit)") && removed.stdout.contains("systemctl --user stop ralph-mobile-server"))
        #expect(!FileManager.default.fileExists(atPath: home.unit))
        let nothing = try await home.run(["uninstall", "--user"])
        #expect(nothing.status == 1 && nothing.stderr.contains("no service is installed at \(home.unit)"))
    }

    @Test(
        "the installed unit passes systemd-analyze verify",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "systemd-analyze is missing (Debian package systemd)"))
    func unitVerifies() async throws {
        let home = ServiceHome()
        let workspace = home.tmp.subdirectory("with space %n $HOME")
        let installed = try await home.run([
            "install", "--user", "--workspace", workspace, "--claude-arg=--model=\"sonnet\"", "--api-key", Self.strongKey,
        ])
        #expect(installed.status == 0, "\(installed.stderr)")
        let system = try await home.run(["install", "--port", "9302"])
        #expect(system.status == 0, "\(system.stderr)")
        let systemUnit = home.tmp.path + "/root/etc/systemd/system/ralph-mobile-server.service"
        #expect(system.stdout.contains("sudo systemctl daemon-reload && sudo systemctl enable --now ralph-mobile-server"))
        #expect(try String(contentsOfFile: systemUnit, encoding: .utf8).contains("\nWantedBy=multi-user.target\n"))
        for unit in [home.unit, systemUnit] {
            let verify = try await Products.run(executable: Self.systemdAnalyze, ["verify", unit])
            let text = try String(contentsOfFile: unit, encoding: .utf8)
            #expect(verify.status == 0 && verify.stderr.isEmpty, "systemd-analyze verify \(unit):\n\(verify.stderr)\n\(text)")
        }
        // The quoted, escaped word reads back as given: systemd's own parse of ExecStart.
        let show = try String(contentsOfFile: home.unit, encoding: .utf8)
        #expect(show.contains("\"--workspace=\(workspace.replacingOccurrences(of: "%", with: "%%").replacingOccurrences(of: "$", with: "$$"))\""), "\(show)")
        #expect(show.contains("\"--claude-arg=--model=\\\"sonnet\\\"\""), "\(show)")
    }

    @Test("a secret given never goes into the unit: it is in a file of mode 0600 the unit names")
    func secretsStayPrivate() async throws {
        let home = ServiceHome()
        let password = "hunter2-Secret"
        let installed = try await home.run([
            "install", "--user", "--api-key", Self.strongKey, "--database", "postgres://ralph:\(password)@127.0.0.1:5432/ralph",
            "--port", "9303",
        ])
        #expect(installed.status == 0, "\(installed.stderr)")
        let unit = try String(contentsOfFile: home.unit, encoding: .utf8)
        #expect(!unit.contains(Self.strongKey) && !unit.contains(password))
        #expect(unit.contains("\nEnvironmentFile=\(home.secrets)\n"))
        #expect(try fileMode(home.secrets) == 0o600)
        #expect(try fileMode(home.config + "/ralph-mobile") == 0o700)
        let secrets = try String(contentsOfFile: home.secrets, encoding: .utf8)
        #expect(secrets.contains("\nRALPH_MOBILE_API_KEY='\(Self.strongKey)'\n"))
        #expect(secrets.contains("\nRALPH_MOBILE_DATABASE_URL='postgres://ralph:\(password)@127.0.0.1:5432/ralph'\n"))
        #expect(installed.stdout.contains("mode 0600") && !installed.stdout.contains(Self.strongKey))

        // --print shows the unit and says where the secrets would go, without them.
        let printed = try await home.run(["install", "--user", "--print", "--api-key", Self.strongKey])
        #expect(printed.status == 0 && !printed.stdout.contains(Self.strongKey) && !printed.stderr.contains(Self.strongKey))
        #expect(printed.stdout.contains("EnvironmentFile=\(home.secrets)") && printed.stderr.contains("mode 0600"))

        // A key from the environment goes to the same private file.
        _ = try await home.run(["uninstall", "--user"])
        #expect(!FileManager.default.fileExists(atPath: home.secrets), "uninstall removes the secrets too")
        let fromEnvironment = try await home.run(["install", "--user"], environment: ["RALPH_MOBILE_API_KEY": Self.strongKey])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        #expect(try String(contentsOfFile: home.secrets, encoding: .utf8).contains(Self.strongKey))
        #expect(try !String(contentsOfFile: home.unit, encoding: .utf8).contains(Self.strongKey))
    }

    @Test("--config names the file in the unit; bad options or files are refused and nothing is written")
    func configAndRefusals() async throws {
        let home = ServiceHome()
        let file = home.tmp.path + "/server.yaml"
        try Data("port: 9304\nworkspace: [~/code]\n".utf8).write(to: URL(fileURLWithPath: file))
        let installed = try await home.run(["install", "--user", "--config", file, "--log-level", "debug"])
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(try String(contentsOfFile: home.unit, encoding: .utf8).contains("ExecStart=\(Executable.path) --config \(file) --log-level=debug\n"))
        _ = try await home.run(["uninstall", "--user"])

        try Data("port: 9304\nlog-level: loud\n".utf8).write(to: URL(fileURLWithPath: file))
        let cases: [([String], String)] = [
            (["install", "--user", "--config", file], "\(file):2: log-level: --log-level must be one of"),
            (["install", "--user", "--config", home.tmp.path + "/none.yaml"], "none.yaml: does not exist"),
            (["install", "--user", "--port", "abc"], "The value 'abc' is invalid for '--port"),
            (["install", "--user", "--bogus"], "the server's options: Unknown option '--bogus'"),
            (["install", "--user", "keys"], "`keys` is a subcommand"),
            (["install", "--user", "--api-key", "short"], "--api-key"),
            (["install", "--user", "--init-system", "launchd", "--api-key", Self.strongKey], "keys create --role admin"),
        ]
        for (arguments, expected) in cases {
            let result = try await home.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: home.unit) && !FileManager.default.fileExists(atPath: home.secrets))
        #expect(!FileManager.default.fileExists(atPath: home.tmp.path + "/home/Library"))
    }

    @Test("the launchd job is a well-formed property list that keeps the server alive on failure")
    func launchdPlist() async throws {
        let home = ServiceHome()
        let printed = try await home.run(["install", "--user", "--init-system", "launchd", "--print", "--port", "9305", "--stop-grace", "30"])
        #expect(printed.status == 0, "\(printed.stderr)")
        let installed = try await home.run(["install", "--user", "--init-system", "launchd", "--port", "9305", "--stop-grace", "30"])
        #expect(installed.status == 0, "\(installed.stderr)")
        let path = home.tmp.path + "/home/Library/LaunchAgents/com.ralph-mobile.server.plist"
        #expect(installed.stdout.contains("launchctl bootstrap gui/\(getuid()) \(path)"))
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data == Data(printed.stdout.utf8))
        let job = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(job["Label"] as? String == "com.ralph-mobile.server")
        #expect(job["ProgramArguments"] as? [String] == [Executable.path, "--port=9305", "--stop-grace=30"])
        #expect(job["WorkingDirectory"] as? String == FileManager.default.currentDirectoryPath)
        #expect(job["RunAtLoad"] as? Bool == true)
        #expect((job["KeepAlive"] as? [String: Any])?["SuccessfulExit"] as? Bool == false)
        #expect(job["ExitTimeOut"] as? Int == 45)
        #expect(job["StandardErrorPath"] as? String == home.tmp.path + "/home/Library/Logs/ralph-mobile-server.log")
        #expect((job["EnvironmentVariables"] as? [String: String])?["PATH"] != nil)
        #expect(try fileMode(path) == 0o644)
        let removed = try await home.run(["uninstall", "--user", "--init-system", "launchd"])
        #expect(removed.status == 0 && removed.stdout.contains("launchctl bootout gui/\(getuid())/com.ralph-mobile.server"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
