import ArgumentParser
import Foundation
import RalphMobileServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ralph-mobile-server service install|uninstall`: the server as a systemd unit (Linux) or a launchd job (macOS).
struct ServiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service",
        abstract: "Run the server as a service: a systemd unit on Linux, a launchd job on macOS.",
        discussion: """
            Examples:
              ralph-mobile-server service install --user --workspace ~/code     your own, started at login
              ralph-mobile-server service install --user --config ~/ralph.yaml  with a configuration file
              ralph-mobile-server service install --user --print                show the unit, install nothing
              ralph-mobile-server service uninstall --user
            """,
        subcommands: [Install.self, Uninstall.self]
    )

    /// Where the service goes: options install and uninstall share.
    struct Target: ParsableArguments {
        @Flag(help: "A service of your own user (systemd --user, a launchd agent) instead of a system-wide one (which needs root).")
        var user = false

        /// `systemd` or `launchd`; by default the platform's. For generating (and testing) the other's file.
        @Option(name: .customLong("init-system"), help: .hidden)
        var initSystem: String?

        func validate() throws {
            if let initSystem, !["systemd", "launchd"].contains(initSystem) {
                throw ValidationError("--init-system must be systemd or launchd")
            }
        }

        var launchd: Bool {
            #if os(macOS)
            return (initSystem ?? "launchd") == "launchd"
            #else
            return initSystem == "launchd"
            #endif
        }

        /// The paths for this target. A system-wide service's go under `$RALPH_MOBILE_SERVICE_ROOT` when it is set
        /// (undocumented: for tests, which must not write /etc).
        func paths(environment: [String: String]) -> Paths {
            let home = ConfigurationFile.home(environment)
            let root = environment["RALPH_MOBILE_SERVICE_ROOT"] ?? ""
            if launchd {
                let base = user ? home : root
                let file = base + (user ? "/Library/LaunchAgents/" : "/Library/LaunchDaemons/") + ServiceDefinition.launchdLabel + ".plist"
                return Paths(definition: file, environmentFile: nil, logFile: base + "/Library/Logs/ralph-mobile-server.log")
            }
            if user {
                let config = ConfigurationFile.configDirectory(environment: environment)
                return Paths(
                    definition: config + "/systemd/user/" + ServiceDefinition.unitName,
                    environmentFile: config + "/ralph-mobile/server.env", logFile: nil)
            }
            return Paths(
                definition: root + "/etc/systemd/system/" + ServiceDefinition.unitName,
                environmentFile: root + "/etc/ralph-mobile/server.env", logFile: nil)
        }

        /// A system-wide service needs root (unless redirected for tests).
        func checkPrivileges(environment: [String: String]) throws(ServiceError) {
            if !user && environment["RALPH_MOBILE_SERVICE_ROOT"] == nil && geteuid() != 0 {
                throw ServiceError("a system-wide service needs root: run this with sudo, or add --user for a service of your own")
            }
        }

        /// How the user runs the service manager's commands: `systemctl --user`, `sudo systemctl`.
        var systemctl: String { user ? "systemctl --user" : "sudo systemctl" }
        var launchctlDomain: String { user ? "gui/\(getuid())" : "system" }
    }

    /// The files of one service.
    struct Paths {
        /// The unit or the property list.
        let definition: String
        /// systemd's file of secret variables.
        let environmentFile: String?
        /// launchd's log.
        let logFile: String?
    }

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a service that runs the server with the options given after `install`.",
            discussion: """
                The service runs this executable, in the current directory, with the server options given here (and \
                the configuration file named by --config, or the default one when it exists), and is started again \
                when it fails. A secret given (--api-key, a database URL's password) goes to a file only you can \
                read (mode 0600), never into the unit.
                """
        )

        @OptionGroup var target: Target

        @Flag(help: "Replace a service that is already installed.")
        var force = false

        @Flag(name: [.customLong("print"), .customLong("dry-run")], help: "Write the unit (or property list) to standard output; install nothing.")
        var printOnly = false

        @Option(
            name: .customLong("config"),
            help: ArgumentHelp("The configuration file the service reads (default: ~/.config/ralph-mobile/server.yaml, when it exists).", valueName: "file"))
        var config: String?

        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The server's options, e.g. --port 8080 --workspace ~/code.", valueName: "server-options"))
        var serverArguments: [String] = []

        func run() throws {
            let environment = ProcessInfo.processInfo.environment
            do {
                try install(environment: environment)
            } catch let error as ServiceError {
                FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
                throw ExitCode.failure
            } catch let error as ConfigurationError {
                FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
                throw ExitCode.validationFailure
            }
        }

        /// The words after `install` on the command line: the configuration file named with `--config`, and the rest
        /// less install's own options. ArgumentParser gives the options the root command declares (`--port`, and
        /// `--config` itself) to the root, even written after `install`, so they are taken here as written.
        static func installWords(_ words: [String]) -> (config: String?, server: [String]) {
            guard let start = words.firstIndex(of: "install") else { return (nil, []) }
            var config: String?
            var result: [String] = []
            var index = start + 1
            while index < words.count {
                let word = words[index]
                index += 1
                if ["--user", "--force", "--print", "--dry-run", "--"].contains(word) { continue }
                if word == "--config" || word == "--init-system" {
                    if word == "--config", index < words.count { config = words[index] }
                    index += 1
                    continue
                }
                if word.hasPrefix("--config=") {
                    config = String(word.dropFirst("--config=".count))
                    continue
                }
                if word.hasPrefix("--init-system=") { continue }
                result.append(word)
            }
            return (config, result)
        }

        private func install(environment: [String: String]) throws {
            let (configWord, serverArguments) = Self.installWords(Array(CommandLine.arguments.dropFirst()))
            let workingDirectory = FileManager.default.currentDirectoryPath
            // The configuration file, by its absolute path: the service may not share this shell's $XDG_CONFIG_HOME.
            var configFile: String?
            if let config = configWord ?? config {
                configFile = config.hasPrefix("/") ? config : workingDirectory + "/" + config
            } else if FileManager.default.fileExists(atPath: ConfigurationFile.defaultPath(environment: environment)) {
                configFile = ConfigurationFile.defaultPath(environment: environment)
            }
            if serverArguments.contains("--print-config") {
                throw ServiceError("--print-config prints the server's settings and exits; run it without `service install`")
            }
            // The options are checked as the server would check them at start.
            let layers = try ConfigurationLayers(
                arguments: (configFile.map { ["--config", $0] } ?? []) + serverArguments, environment: environment,
                command: RalphMobileServerCommand.self)
            if let subcommand = layers.subcommand.first {
                throw ServiceError("`\(subcommand)` is a subcommand; a service runs the server itself, with its options")
            }
            let server: RalphMobileServerCommand
            do {
                guard let parsed = try RalphMobileServerCommand.parseAsRoot(layers.arguments) as? RalphMobileServerCommand else {
                    throw ServiceError("the server's options are not valid: \(serverArguments.joined(separator: " "))")
                }
                server = parsed
            } catch let error as ServiceError {
                throw error
            } catch {
                let message = RalphMobileServerCommand.message(for: error)
                if let fileError = layers.fileError(explaining: message) { throw fileError }
                throw ServiceError("the server's options: \(message)")
            }

            // The options given, rebuilt one per value; the secrets among them (and in the environment) set aside.
            var arguments = configFile.map { ["--config", $0] } ?? []
            var secrets: [(String, String)] = []
            var plain: [(String, String)] = []
            if let path = environment["PATH"], !path.isEmpty { plain.append(("PATH", path)) }
            for option in layers.options.options where !ConfigurationFile.commandLineOnly.contains(option.key) {
                let (source, values) = layers.effective(option)
                let secret = Secrets.isSecret(option.key) || values.contains { Secrets.redactingPasswords(in: $0) != nil }
                switch source {
                case .flag:
                    if secret {
                        guard let variable = ConfigurationLayers.environmentVariables[option.key], values.count == 1 else {
                            throw ServiceError(
                                "--\(option.key) is a secret, and a service's definition can be read by every user; it has no "
                                    + "environment variable to keep it in a private file: set it in a configuration file of mode 0600 "
                                    + "and install with --config <file>")
                        }
                        secrets.append((variable, values[0]))
                    } else {
                        arguments += values.map { $0.isEmpty && !option.takesValue ? "--\(option.key)" : "--\(option.key)=\($0)" }
                    }
                case .environment(let variable):
                    if secret { secrets.append((variable, values[0])) } else { plain.append((variable, values[0])) }
                case .file, .defaultValue:
                    break
                }
            }
            let paths = target.paths(environment: environment)
            if !secrets.isEmpty && paths.environmentFile == nil {
                throw ServiceError(
                    "\(secrets.map { $0.0 }.joined(separator: ", ")) would be written into the launchd job, which every user can read: "
                        + "create a key with `ralph-mobile-server keys create --role admin` instead of giving --api-key, and put "
                        + "other secrets in a configuration file of mode 0600 named with --config")
            }
            let definition = ServiceDefinition(
                executable: ServerConfiguration.currentExecutable(), arguments: arguments, workingDirectory: workingDirectory,
                environment: plain, environmentFile: secrets.isEmpty ? nil : paths.environmentFile,
                stopTimeout: Int(server.stopGrace.rounded(.up)) + 15, user: target.user,
                logFile: paths.logFile ?? "")
            let text = try target.launchd ? definition.launchdPlist() : Data(definition.systemdUnit().utf8)
            let secretText: String? = try secrets.isEmpty ? nil : ServiceDefinition.environmentFile(secrets)

            if printOnly {
                FileHandle.standardOutput.write(text)
                if let file = paths.environmentFile, !secrets.isEmpty {
                    FileHandle.standardError.write(Data("(not shown: \(secrets.map { $0.0 }.joined(separator: ", ")) would go to \(file), mode 0600)\n".utf8))
                }
                return
            }
            try target.checkPrivileges(environment: environment)
            let written = [paths.definition] + (secretText != nil ? [paths.environmentFile].compactMap { $0 } : [])
            for path in written where FileManager.default.fileExists(atPath: path) && !force {
                throw ServiceError("\(path) already exists: add --force to replace it (or `service uninstall\(target.user ? " --user" : "")` first)")
            }
            if let secretText, let file = paths.environmentFile {
                try Self.writeFile(Data(secretText.utf8), to: file, mode: 0o600, directoryMode: 0o700)
            } else if let file = paths.environmentFile, force, FileManager.default.fileExists(atPath: file) {
                // A replaced unit without secrets must not leave the old ones behind.
                try? FileManager.default.removeItem(atPath: file)
            }
            do {
                try Self.writeFile(text, to: paths.definition, mode: 0o644, directoryMode: 0o755)
            } catch {
                if secretText != nil, let file = paths.environmentFile { try? FileManager.default.removeItem(atPath: file) }
                throw error
            }
            print("Wrote \(paths.definition)")
            if secretText != nil, let file = paths.environmentFile {
                print("Wrote \(file) (mode 0600: \(secrets.map { $0.0 }.joined(separator: ", ")))")
                if secrets.contains(where: { $0.0 == "RALPH_MOBILE_API_KEY" }) {
                    print("(A key made with `ralph-mobile-server keys create --role admin` needs no secret in the service at all.)")
                }
            }
            print(instructions(paths: paths))
        }

        /// How to start the service, keep it running and read its log.
        private func instructions(paths: Paths) -> String {
            if target.launchd {
                return """

                    Start it now and at every \(target.user ? "login" : "boot"):
                      \(target.user ? "" : "sudo ")launchctl bootstrap \(target.launchctlDomain) \(paths.definition)
                    Its log: tail -f \(paths.logFile ?? "")
                    Stop it: \(target.user ? "" : "sudo ")launchctl bootout \(target.launchctlDomain)/\(ServiceDefinition.launchdLabel)
                    """
            }
            let journal = target.user ? "journalctl --user -u ralph-mobile-server -f" : "sudo journalctl -u ralph-mobile-server -f"
            var text = """

                Start it now and at every \(target.user ? "login" : "boot"):
                  \(target.systemctl) daemon-reload && \(target.systemctl) enable --now ralph-mobile-server
                Its state and log:
                  \(target.systemctl) status ralph-mobile-server
                  \(journal)
                """
            if target.user {
                text += """

                    A user's services stop when you log out; to keep it running (and start it at boot):
                      sudo loginctl enable-linger \(NSUserName())
                    """
            }
            return text
        }

        /// Writes `data` to `path` through a temporary file created with `mode` (never wider, not even for a moment),
        /// renamed into place; missing directories are created with `directoryMode`.
        static func writeFile(_ data: Data, to path: String, mode: mode_t, directoryMode: Int) throws(ServiceError) {
            let directory = (path as NSString).deletingLastPathComponent
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: directoryMode])
            } catch {
                throw ServiceError("cannot create \(directory): \(error.localizedDescription)")
            }
            let temporary = path + ".tmp-\(getpid())"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            guard fd >= 0 else { throw ServiceError("cannot write \(temporary): \(String(cString: strerror(errno)))") }
            // The umask may have narrowed the mode; the file gets exactly `mode`.
            let written = data.withUnsafeBytes { buffer in buffer.isEmpty ? 0 : write(fd, buffer.baseAddress, buffer.count) }
            let complete = written == data.count && fchmod(fd, mode) == 0 && fsync(fd) == 0
            close(fd)
            guard complete, rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw ServiceError("cannot write \(path): \(reason)")
            }
        }
    }

    struct Uninstall: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the service `install` wrote (its unit or property list, and its secrets file).")

        @OptionGroup var target: Target

        @Flag(help: "Remove the files even though the service is still enabled.")
        var force = false

        func run() throws {
            let environment = ProcessInfo.processInfo.environment
            do {
                try uninstall(environment: environment)
            } catch {
                FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
                throw ExitCode.failure
            }
        }

        private func uninstall(environment: [String: String]) throws(ServiceError) {
            let paths = target.paths(environment: environment)
            guard FileManager.default.fileExists(atPath: paths.definition) else {
                throw ServiceError("no service is installed at \(paths.definition)\(target.user ? "" : " (a service of your own? add --user)")")
            }
            try target.checkPrivileges(environment: environment)
            if !target.launchd && !force {
                // `systemctl enable` links the unit from the target's .wants directory beside it.
                let directory = (paths.definition as NSString).deletingLastPathComponent
                let link = directory + (target.user ? "/default.target.wants/" : "/multi-user.target.wants/") + ServiceDefinition.unitName
                if (try? FileManager.default.destinationOfSymbolicLink(atPath: link)) != nil {
                    throw ServiceError(
                        "the service is still enabled: first `\(target.systemctl) disable --now ralph-mobile-server`, then uninstall "
                            + "(or add --force to remove its files anyway)")
                }
            }
            var removed: [String] = []
            for path in [paths.definition, paths.environmentFile].compactMap({ $0 }) where FileManager.default.fileExists(atPath: path) {
                do {
                    try FileManager.default.removeItem(atPath: path)
                } catch {
                    throw ServiceError("cannot remove \(path): \(error.localizedDescription)")
                }
                removed.append(path)
            }
            for path in removed { print("Removed \(path)") }
            if target.launchd {
                print("If it is still loaded, stop it: \(target.user ? "" : "sudo ")launchctl bootout \(target.launchctlDomain)/\(ServiceDefinition.launchdLabel)")
            } else {
                print("If it is still running, stop it, and let systemd forget it:")
                print("  \(target.systemctl) stop ralph-mobile-server; \(target.systemctl) daemon-reload")
            }
        }
    }
}
