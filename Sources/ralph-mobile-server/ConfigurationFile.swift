import Foundation
import Yams

/// A mistake in a configuration file (or in naming one): the file, and where known the line and the key, in words.
struct ConfigurationError: Error, CustomStringConvertible {
    let file: String
    let line: Int?
    let key: String?
    let message: String

    var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        return key.map { "\(place): \($0): \(message)" } ?? "\(place): \(message)"
    }
}

/// The server's configuration file, `~/.config/ralph-mobile/server.yaml`: a YAML mapping from the server's long option
/// names (without `--`) to values, e.g. `port: 8080`, `workspace: [~/code, ~/other]`, `bind-all: true`.
///
/// Every option of the command can be set; a value is given to the command exactly as its flag would be, so it is
/// checked by the same code (and its errors are then reported at the file's line). A flag is `true` or `false`, an
/// option that may be repeated takes a list or one value, `~` or an empty value leaves an option unset, and a value
/// starting with `~/` is under the home directory, as in a shell.
struct ConfigurationFile {
    /// One key of the file.
    struct Setting {
        let key: String
        /// What is given to the command: the values of `--key=value` (one per value of a list); for a flag, one
        /// empty string when true, none when false.
        let values: [String]
        /// The line of the key (from 1).
        let line: Int
    }

    /// Options of the command line that name or print the file itself.
    static let commandLineOnly: Set = ["config", "print-config"]

    let path: String
    /// The keys set, in the file's order.
    let settings: [Setting]

    /// The default file: `$XDG_CONFIG_HOME/ralph-mobile/server.yaml`, else `~/.config/ralph-mobile/server.yaml`.
    static func defaultPath(environment: [String: String]) -> String {
        configDirectory(environment: environment) + "/ralph-mobile/server.yaml"
    }

    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    static func configDirectory(environment: [String: String]) -> String {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg }
        return home(environment) + "/.config"
    }

    /// `$HOME`, else the user's home directory from the password database.
    static func home(_ environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        return NSHomeDirectory()
    }

    /// Reads and checks the file: every key must be an option of `options`, with a value of the right shape.
    static func load(path: String, options: CommandOptions, environment: [String: String]) throws(ConfigurationError) -> ConfigurationFile {
        func fail(_ line: Int?, _ key: String?, _ message: String) -> ConfigurationError {
            ConfigurationError(file: path, line: line, key: key, message: message)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw fail(nil, nil, "cannot be read (is it a readable file?)")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw fail(nil, nil, "is not UTF-8 text") }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch YamlError.duplicatedKeysInMapping(let duplicates, _) {
            // Yams refuses a key given twice before we see the mapping: said as any other mistake, with its lines.
            let key = duplicates.sorted()[0]
            let lines = Self.topLevelLines(of: key, in: text)
            if lines.count >= 2 { throw fail(lines[1], key, "is set twice (first on line \(lines[0]))") }
            throw fail(nil, key, "is set twice")
        } catch {
            throw fail(nil, nil, "is not valid YAML: \(error)")
        }
        guard let root else { return ConfigurationFile(path: path, settings: []) }
        guard let mapping = root.mapping else {
            throw fail(root.mark?.line, nil, "must be a mapping of option names to values, e.g. `port: 8080`")
        }
        let home = home(environment)
        func expand(_ value: String) -> String {
            if value == "~" { return home }
            if value.hasPrefix("~/") { return home + value.dropFirst() }
            return value
        }
        var settings: [Setting] = []
        var lines: [String: Int] = [:]
        for (keyNode, value) in mapping {
            let line = keyNode.mark?.line ?? 0
            guard let key = keyNode.scalar?.string else { throw fail(line, nil, "a key must be an option's name, e.g. `port`") }
            if let first = lines[key] { throw fail(line, key, "is set twice (first on line \(first))") }
            lines[key] = line
            guard !commandLineOnly.contains(key), let option = options.option(key: key) else {
                throw fail(line, key, unknownKeyMessage(key, options: options))
            }
            let valueLine = value.mark?.line ?? line
            if !option.takesValue {
                guard let scalar = value.scalar, value.null == nil, let flag = value.bool, scalar.style == .plain else {
                    throw fail(valueLine, key, "is a flag: its value must be true or false")
                }
                settings.append(Setting(key: key, values: flag ? [""] : [], line: line))
                continue
            }
            if value.scalar != nil {
                if value.null != nil, value.scalar?.style == .plain { continue }
                settings.append(Setting(key: key, values: [expand(value.scalar?.string ?? "")], line: line))
                continue
            }
            guard let sequence = value.sequence else {
                throw fail(valueLine, key, option.repeating ? "must be a value or a list of values" : "must be a single value")
            }
            guard option.repeating else {
                throw fail(valueLine, key, "takes a single value, not a list (it is not an option given several times)")
            }
            var values: [String] = []
            for item in sequence {
                guard let scalar = item.scalar, item.null == nil || scalar.style != .plain else {
                    throw fail(item.mark?.line ?? valueLine, key, "each item of the list must be a single value")
                }
                values.append(expand(scalar.string))
            }
            settings.append(Setting(key: key, values: values, line: line))
        }
        let file = ConfigurationFile(path: path, settings: settings)
        try file.checkSecretsArePrivate()
        return file
    }

    /// Why `key` is not a key of the file, with the nearest key when it looks like a misspelling.
    private static func unknownKeyMessage(_ key: String, options: CommandOptions) -> String {
        if commandLineOnly.contains(key) {
            return "is an option of the command line only (a configuration file cannot name another, or print itself)"
        }
        let stripped = key.drop { $0 == "-" }
        if stripped != Substring(key), options.option(key: String(stripped)) != nil {
            return "is not a key; write it without dashes: `\(stripped):`"
        }
        var message = "is not an option of ralph-mobile-server (the keys are its long option names, without --)"
        let nearest = options.options.map { ($0.key, editDistance($0.key, key)) }.min { $0.1 < $1.1 }
        if let nearest, nearest.1 <= 2 { message += "; did you mean `\(nearest.0)`?" }
        return message
    }

    /// A key that holds a secret must not be in a file other users can read: the server refuses to start, as ssh does.
    private func checkSecretsArePrivate() throws(ConfigurationError) {
        guard let secret = settings.first(where: { setting in
            Secrets.isSecret(setting.key) || setting.values.contains { Secrets.redactingPasswords(in: $0) != nil }
        }) else { return }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
        else { return }
        if mode & 0o077 != 0 {
            throw ConfigurationError(
                file: path, line: secret.line, key: secret.key,
                message: "is a secret, and the file is readable by other users (mode \(String(mode & 0o777, radix: 8))): "
                    + "run `chmod 600 \(path)`, or keep the secret out of the file (an API key: `ralph-mobile-server keys create`)")
        }
    }

    /// The lines (from 1) where `key` is set at the top level of `text` (`key:` at the start of a line, quoted or not).
    static func topLevelLines(of key: String, in text: String) -> [Int] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            let forms = [key, "\"\(key)\"", "'\(key)'"]
            let match = forms.contains { form in
                line.hasPrefix(form) && line.dropFirst(form.count).drop { $0 == " " || $0 == "\t" }.hasPrefix(":")
            }
            return match ? index + 1 : nil
        }
    }

    /// The Levenshtein distance of two short strings.
    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
}

/// Which options hold secrets, and how a secret is kept out of what is printed or written world-readable.
enum Secrets {
    /// Options whose name looks like a secret's but whose value is not one (`--apns-key` is the key file's path).
    static let notSecret: Set = ["apns-key", "apns-key-id"]

    /// Whether the value of option `key` is a secret: any `…-key`, `…-token`, `…-password` or `…-secret` (so an option
    /// added later with such a name is redacted with no code of its own), but the listed exceptions.
    static func isSecret(_ key: String) -> Bool {
        if notSecret.contains(key) { return false }
        return ["key", "token", "password", "secret"].contains { key == $0 || key.hasSuffix("-" + $0) }
    }

    /// `value` with the password of a URL in it (`postgres://user:password@host/db`, or a `password=` query item)
    /// replaced by `redacted`; nil when it has none.
    static func redactingPasswords(in value: String) -> String? {
        guard value.contains("://"), var components = URLComponents(string: value) else { return nil }
        var changed = false
        if let password = components.percentEncodedPassword, !password.isEmpty {
            components.percentEncodedPassword = "redacted"
            changed = true
        }
        if let items = components.queryItems, items.contains(where: { $0.name.lowercased() == "password" }) {
            components.queryItems = items.map { $0.name.lowercased() == "password" ? URLQueryItem(name: $0.name, value: "redacted") : $0 }
            changed = true
        }
        return changed ? components.string : nil
    }
}
