import Foundation
import RalphAPI
import Testing
import TestSupport

/// A home of its own for each test: its configuration directory ($XDG_CONFIG_HOME), where `server.yaml` is written.
struct ConfigHome {
    let tmp = TemporaryDirectory("rm-config")
    var configDirectory: String { tmp.path + "/config" }
    var defaultFile: String { configDirectory + "/ralph-mobile/server.yaml" }
    var home: String { tmp.path + "/home" }
    var environment: [String: String] {
        ["HOME": home, "XDG_CONFIG_HOME": configDirectory, "RALPH_MOBILE_DATA_DIR": "", "RALPH_MOBILE_DATABASE_URL": ""]
    }

    /// Writes `text` as the default configuration file (or at `path`), with `mode`.
    @discardableResult
    func write(_ text: String, to path: String? = nil, mode: Int = 0o600) throws -> String {
        let path = path ?? defaultFile
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    /// Runs the server executable with this home (and `environment` on top).
    func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> Products.Output {
        try await Executable.run(arguments, environment: environment.merging(extra) { _, given in given })
    }
}

/// The line of `--print-config`'s output for `key` (commented out or not).
func configLine(_ output: String, _ key: String) -> String? {
    output.split(separator: "\n").map(String.init).first { $0.hasPrefix(key + ":") || $0.hasPrefix("# " + key + ":") }
}

/// A line of `--print-config` as (the setting, where it came from).
func splitConfigLine(_ line: String) -> (String, String)? {
    guard let range = line.range(of: #"\s+# (flag|default|file, line \d+|environment [A-Z_]+)(, (not set|secret redacted))?$"#, options: .regularExpression)
    else { return nil }
    let comment = line[range].trimmingCharacters(in: .whitespaces).dropFirst(2)
    return (String(line[..<range.lowerBound]), String(comment))
}

@Suite("The configuration file")
struct ConfigurationFileTests {
    static let strongKey = "Zq8vN3xR7pL2mK9sT4wY6bC1dF5gH0jA"

    @Test("each layer wins over the next: flag > environment > file > default; a list on the command line replaces the file's")
    func precedence() async throws {
        let home = ConfigHome()
        let none = try await home.run(["--print-config"])
        #expect(none.status == 0, "\(none.stderr)")
        #expect(none.stdout.contains("(not found: none read)"))
        #expect(configLine(none.stdout, "port").flatMap(splitConfigLine)?.1 == "default")
        #expect(configLine(none.stdout, "port")?.hasPrefix("port: 8080 ") == true)

        try home.write(
            """
            port: 9100
            data-dir: /from/file
            workspace: [/file/a, /file/b]
            log-level: debug
            bind: 127.0.0.2
            """)
        let file = try await home.run(["--print-config"])
        #expect(file.status == 0, "\(file.stderr)")
        #expect(configLine(file.stdout, "port").flatMap(splitConfigLine).map { $0 == ("port: 9100", "file, line 1") } == true)
        #expect(configLine(file.stdout, "data-dir").flatMap(splitConfigLine).map { $0 == ("data-dir: /from/file", "file, line 2") } == true)
        #expect(configLine(file.stdout, "workspace").flatMap(splitConfigLine)?.0 == "workspace: [/file/a, /file/b]")
        #expect(configLine(file.stdout, "idle-timeout").flatMap(splitConfigLine).map { $0 == ("idle-timeout: 75.0", "default") } == true)

        let environment = try await home.run(["--print-config"], environment: ["RALPH_MOBILE_DATA_DIR": "/from/env"])
        #expect(configLine(environment.stdout, "data-dir").flatMap(splitConfigLine).map { $0 == ("data-dir: /from/env", "environment RALPH_MOBILE_DATA_DIR") } == true)

        let flags = try await home.run(
            ["--print-config", "-p", "9200", "--data-dir", "/from/flag", "--workspace", "/flag/c", "--bind-all"],
            environment: ["RALPH_MOBILE_DATA_DIR": "/from/env"])
        #expect(flags.status == 0, "\(flags.stderr)")
        #expect(configLine(flags.stdout, "port").flatMap(splitConfigLine).map { $0 == ("port: 9200", "flag") } == true)
        #expect(configLine(flags.stdout, "data-dir").flatMap(splitConfigLine).map { $0 == ("data-dir: /from/flag", "flag") } == true)
        #expect(configLine(flags.stdout, "workspace").flatMap(splitConfigLine).map { $0 == ("workspace: [/flag/c]", "flag") } == true)
        #expect(configLine(flags.stdout, "log-level").flatMap(splitConfigLine).map { $0 == ("log-level: debug", "file, line 4") } == true)
        // --bind-all on the command line overrides the file's bind rather than conflicting with it.
        #expect(configLine(flags.stdout, "bind-all").flatMap(splitConfigLine).map { $0 == ("bind-all: true", "flag") } == true)
        #expect(configLine(flags.stdout, "bind").flatMap(splitConfigLine)?.1 == "default, not set")
    }

    @Test("the server runs with the file's settings, and keys create uses its data directory")
    func serverAndKeysUseTheFile() async throws {
        let home = ConfigHome()
        let workspace = home.tmp.subdirectory("workspace")
        let data = home.tmp.path + "/data"
        try home.write("port: 0\ndata-dir: \(data)\nworkspace:\n  - \(workspace)\nlog-level: debug\n")
        let server = try Executable.Server([], environment: home.environment)
        defer { server.stop() }
        let port = try await server.port()
        let health = try await HTTP.request("http://127.0.0.1:\(port)/api/health")
        #expect(health.status == 200)
        #expect(port != 8080, "port 0 from the file")
        #expect(FileManager.default.fileExists(atPath: data), "the data directory from the file")

        let created = try await home.run(["keys", "create", "--role", "viewer", "--name", "from-file"])
        #expect(created.status == 0, "\(created.stderr)")
        let keys = try String(contentsOfFile: data + "/keys.json", encoding: .utf8)
        #expect(keys.contains("from-file"))
    }

    @Test("every option of the server command (hidden ones too) can be set in the file")
    func everyOptionIsSettable() async throws {
        let home = ConfigHome()
        let dump = try await home.run(["--experimental-dump-help"])
        let tool = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let command = try #require(tool["command"] as? [String: Any])
        let arguments = try #require(command["arguments"] as? [[String: Any]])
        let directory = home.tmp.subdirectory("dir")
        // A valid value for each option without a default; any other option without one gets a plain string.
        let samples: [String: String] = [
            "bind": "127.0.0.2", "api-key": Self.strongKey, "data-dir": directory, "database": "postgres://ralph@127.0.0.1:1/ralph",
            "host-name": "host-a", "web-root": directory, "max-connections": "100", "public-url": "https://ralph.example.com",
            "vapid-subject": "mailto:me@example.com", "apns-key": directory + "/AuthKey.p8", "apns-key-id": "ABCDEFGHIJ",
            "apns-team-id": "TEAM123456", "apns-topic": "com.example.ralph", "apns-host": "127.0.0.1", "apns-ca": directory + "/ca.pem",
            "workspace": directory, "claude-arg": "--verbose", "codex-arg": "-c",
        ]
        var keys: [String] = []
        var lines: [String] = []
        var bindAllFile = ""
        for argument in arguments {
            guard let kind = argument["kind"] as? String, kind != "positional",
                let names = argument["names"] as? [[String: Any]],
                let key = names.first(where: { $0["kind"] as? String == "long" })?["name"] as? String,
                !["help", "version", "config", "print-config"].contains(key)
            else { continue }
            let value: String
            if kind == "flag" {
                value = "true"
            } else if let sample = samples[key] {
                value = (argument["isRepeating"] as? Bool) == true ? "[\"\(sample)\"]" : "\"\(sample)\""
            } else if let defaultValue = argument["defaultValue"] as? String {
                value = "\"\(defaultValue)\""
            } else {
                value = "\"sample-\(key)-Zq8vN3xR7pL2mK9sT4wY\""
            }
            // --bind-all and --bind exclude each other: the flag goes in a file of its own.
            if key == "bind-all" {
                bindAllFile = "bind-all: \(value)\n"
                continue
            }
            keys.append(key)
            lines.append("\(key): \(value)")
        }
        #expect(keys.count >= 40, "the dump lists the server's options")
        let path = try home.write(lines.joined(separator: "\n") + "\n")
        let printed = try await home.run(["--print-config"])
        #expect(printed.status == 0, "\(printed.stderr)")
        for (index, key) in keys.enumerated() {
            let line = configLine(printed.stdout, key)
            let source = line.flatMap(splitConfigLine)?.1
            #expect(source == "file, line \(index + 1)" || source == "file, line \(index + 1), secret redacted", "\(key) is set by \(path): \(line ?? "missing")")
        }
        try home.write(bindAllFile)
        let bindAll = try await home.run(["--print-config"])
        #expect(configLine(bindAll.stdout, "bind-all").flatMap(splitConfigLine).map { $0 == ("bind-all: true", "file, line 1") } == true)
    }

    @Test("mistakes in the file name its path, line and key, and the server does not start")
    func errors() async throws {
        let home = ConfigHome()
        let cases: [(String, String)] = [
            ("port: 8080\nprot: 9000\n", ":2: prot: is not an option of ralph-mobile-server"),
            ("prot: 9000\n", "did you mean `port`?"),
            ("--port: 9000\n", "write it without dashes"),
            // (Not `port`: the command line below sets it, and a flag wins over the file without reading its value.)
            ("log-level: info\nstop-grace: abc\n", ":2: stop-grace: The value 'abc' is invalid for '--stop-grace"),
            ("log-level: loud\n", ":1: log-level: --log-level must be one of"),
            ("stop-grace: 99999\n", ":1: stop-grace: --stop-grace must be between 0 and 3600 seconds"),
            ("demo: maybe\n", ":1: demo: is a flag: its value must be true or false"),
            ("port: [1, 2]\n", ":1: port: takes a single value, not a list"),
            ("workspace:\n  - a\n  - {x: 1}\n", ":3: workspace: each item of the list must be a single value"),
            ("port: 1\nport: 2\n", ":2: port: is set twice (first on line 1)"),
            ("- port\n", ": must be a mapping of option names to values"),
            ("port: [1\n", ": is not valid YAML"),
            ("config: /etc/other.yaml\n", ":1: config: is an option of the command line only"),
            ("apns-key: /k.p8\n", "APNs needs all of --apns-key"),
        ]
        let workspace = home.tmp.subdirectory("ws")
        for (text, expected) in cases {
            let path = try home.write(text)
            let result = try await home.run(["--port", "0", "--workspace", workspace, "--data-dir", home.tmp.path + "/data"])
            #expect(result.status == 64, "\(text): exits 64, not \(result.status)")
            #expect(result.stderr.contains(path), "\(text): names the file: \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(text): says \(expected): \(result.stderr)")
            #expect(!result.stderr.contains("listening on"), "\(text): the server did not start")
        }

        // A file named with --config must exist; the default one may be missing.
        try FileManager.default.removeItem(atPath: home.defaultFile)
        let missing = try await home.run(["--config", home.tmp.path + "/nope.yaml", "--print-config"])
        #expect(missing.status == 64 && missing.stderr.contains("nope.yaml: does not exist (named by --config)"), "\(missing.stderr)")
        let directory = try await home.run(["--config", home.tmp.path, "--print-config"])
        #expect(directory.status == 64 && directory.stderr.contains("is a directory"), "\(directory.stderr)")

        // A secret in a file other users can read is refused, as ssh does.
        let open = try home.write("port: 9000\napi-key: \(Self.strongKey)\n", mode: 0o644)
        let exposed = try await home.run(["--print-config"])
        #expect(exposed.status == 64, "\(exposed.stderr)")
        #expect(exposed.stderr.contains("\(open):2: api-key: is a secret, and the file is readable by other users (mode 644)"), "\(exposed.stderr)")
        try home.write("database: postgres://ralph:hunter2@db/ralph\n", mode: 0o640)
        #expect(try await home.run(["--print-config"]).stderr.contains(":1: database: is a secret"))
        // A command-line mistake is still ArgumentParser's own message.
        try FileManager.default.removeItem(atPath: home.defaultFile)
        let flag = try await home.run(["--port", "abc"])
        #expect(flag.status == 64)
        #expect(flag.stderr.contains("The value 'abc' is invalid") && !flag.stderr.contains("server.yaml"), "\(flag.stderr)")
    }

    @Test("--print-config's output, fed back as a configuration file, gives the same configuration")
    func printConfigRoundTrip() async throws {
        let home = ConfigHome()
        let first = try home.write(
            """
            # a comment
            port: 9400
            workspace: [~/code, "/srv/with space", "/a: b # c"]
            claude-arg: ["--model", "x,y"]
            host-name: "null"
            ralph-command: '~not-home'
            bind-all: true
            api-key: \(Self.strongKey)
            public-url: https://ralph.example.com/
            notify-silence: 0
            max-connections: ~
            """)
        let printed = try await home.run(["--print-config", "--codex-arg=-c", "--codex-arg=model=\"o3\""])
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout.contains("workspace: [\(home.home)/code, \"/srv/with space\", \"/a: b # c\"]"), "~/ is the home: \(printed.stdout)")
        let second = try home.write(printed.stdout, to: home.tmp.path + "/printed.yaml")
        let again = try await home.run(["--config", second, "--print-config"])
        #expect(again.status == 0, "\(again.stderr)")
        func settings(_ text: String) -> [String] {
            text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }.compactMap { splitConfigLine($0)?.0 }
        }
        let before = settings(printed.stdout)
        #expect(before.count > 20)
        #expect(before == settings(again.stdout))
        #expect(again.stdout.contains("# Configuration file: \(second)\n") && printed.stdout.contains("# Configuration file: \(first)\n"))
        // The secret is left out (commented) in both, so feeding it back does not need it.
        #expect(configLine(again.stdout, "api-key").flatMap(splitConfigLine)?.1 == "default, not set")
    }

    @Test("--print-config redacts API keys, tokens and database passwords, wherever they come from")
    func secretsAreRedacted() async throws {
        let home = ConfigHome()
        try home.write("api-key: \(Self.strongKey)\n")
        let fromFile = try await home.run(["--print-config", "--database", "postgres://ralph:hunter2@db.example.com:5432/ralph?sslmode=require"])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(!fromFile.stdout.contains(Self.strongKey) && !fromFile.stdout.contains("hunter2"))
        #expect(configLine(fromFile.stdout, "api-key").flatMap(splitConfigLine).map { $0 == ("# api-key: <redacted>", "file, line 1, secret redacted") } == true)
        #expect(configLine(fromFile.stdout, "database")?.hasPrefix("# database: \"postgres://ralph:redacted@db.example.com:5432/ralph?sslmode=require\"") == true)

        let other = "Yp2Kc7Vn4Bq9Xw3Lm8Rt5Gh1Jd6Fs0Za"
        let fromEnvironment = try await home.run(
            ["--print-config"], environment: ["RALPH_MOBILE_API_KEY": other, "RALPH_MOBILE_DATABASE_URL": "postgres://u@h/d?password=s3cr3t"])
        #expect(!fromEnvironment.stdout.contains(other) && !fromEnvironment.stdout.contains("s3cr3t") && !fromEnvironment.stdout.contains(Self.strongKey))
        #expect(configLine(fromEnvironment.stdout, "api-key").flatMap(splitConfigLine)?.1 == "environment RALPH_MOBILE_API_KEY, secret redacted")
    }
}
