import Foundation

/// What a service that runs the server consists of, and its text as a systemd unit or a launchd job.
///
/// Generation is separate from installing so that both formats are produced (and tested) on any platform.
struct ServiceDefinition {
    /// The absolute path of the server executable.
    var executable: String
    /// Its options (no secret among them: those are in `secretEnvironment`).
    var arguments: [String]
    var workingDirectory: String
    /// Variables of the service's environment that are no secret (PATH, RALPH_MOBILE_DATA_DIR).
    var environment: [(String, String)]
    /// The file holding the secret variables (systemd's `EnvironmentFile=`, mode 0600), if any.
    var environmentFile: String?
    /// Seconds the service manager waits for a stop before it kills the server.
    var stopTimeout: Int
    /// A user's service (systemd --user, a launchd agent) rather than a system-wide one.
    var user: Bool
    /// Where launchd writes the server's standard output and error.
    var logFile: String

    static let unitName = "ralph-mobile-server.service"
    static let launchdLabel = "com.ralph-mobile.server"

    /// The systemd unit.
    func systemdUnit() -> String {
        var lines = [
            "# Written by `ralph-mobile-server service install`; removed by `ralph-mobile-server service uninstall\(user ? " --user" : "")`.",
            "[Unit]",
            "Description=Ralph Mobile server: ralph loops and agent chats for phones, browsers and terminals",
        ]
        if !user {
            lines += ["Wants=network-online.target", "After=network-online.target"]
        }
        lines += [
            "",
            "[Service]",
            "Type=exec",
            "ExecStart=" + ([executable] + arguments).map(Self.execWord).joined(separator: " "),
            "WorkingDirectory=" + Self.escapeSpecifiers(workingDirectory),
        ]
        for (name, value) in environment {
            lines.append("Environment=" + Self.quoted(Self.escapeSpecifiers("\(name)=\(value)")))
        }
        if let environmentFile {
            lines.append("EnvironmentFile=" + Self.escapeSpecifiers(environmentFile))
        }
        lines += [
            "Restart=on-failure",
            "RestartSec=5",
            "# The server stops its runs with their grace (--stop-grace) and then exits within 10 s.",
            "TimeoutStopSec=\(stopTimeout)",
            "",
            "[Install]",
            "WantedBy=\(user ? "default.target" : "multi-user.target")",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The launchd job (a property list in XML).
    func launchdPlist() throws -> Data {
        var job: [String: Any] = [
            "Label": Self.launchdLabel,
            "ProgramArguments": [executable] + arguments,
            "WorkingDirectory": workingDirectory,
            "RunAtLoad": true,
            // Started again when it exits with an error (KeepAlive on failure); a clean exit stays stopped.
            "KeepAlive": ["SuccessfulExit": false],
            "ExitTimeOut": stopTimeout,
            "StandardOutPath": logFile,
            "StandardErrorPath": logFile,
        ]
        if !environment.isEmpty {
            job["EnvironmentVariables"] = Dictionary(environment, uniquingKeysWith: { _, last in last })
        }
        return try PropertyListSerialization.data(fromPropertyList: job, format: .xml, options: 0)
    }

    /// One word of `ExecStart=`: `%` and `$` escaped (systemd would expand them), quoted when it has spaces, quotes or
    /// backslashes (or is a lone `;`, systemd's command separator).
    static func execWord(_ word: String) -> String {
        let escaped = escapeSpecifiers(word).replacingOccurrences(of: "$", with: "$$")
        let needsQuotes = word.isEmpty || word == ";" || word.contains { $0.isWhitespace || $0 == "\"" || $0 == "'" || $0 == "\\" }
        return needsQuotes ? quoted(escaped) : escaped
    }

    /// `text` in double quotes, its backslashes and double quotes escaped.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// `%` doubled: systemd expands `%x` specifiers in most settings.
    static func escapeSpecifiers(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%%")
    }

    /// The lines of an environment file (`NAME='value'`) for `variables`, or why one cannot hold them.
    static func environmentFile(_ variables: [(String, String)]) throws(ServiceError) -> String {
        var lines = ["# Secrets of the ralph-mobile-server service, written by `ralph-mobile-server service install`; keep it mode 0600."]
        for (name, value) in variables {
            if value.contains("'") || value.contains("\n") || value.contains("\\") {
                throw ServiceError("the value of \(name) contains a quote, backslash or line break, which an environment file cannot hold as is")
            }
            lines.append("\(name)='\(value)'")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Why a service could not be installed or removed, in words.
struct ServiceError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
