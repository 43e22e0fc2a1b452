import AgentRunner
import Foundation
import RalphAPI
import RalphFiles

/// Checks a `POST /api/sessions` body and turns it into the argv of `ralph run`. Blocking (touches the disk).
///
/// Every path is resolved inside the workspace roots, symbolic links included; a path outside is
/// `invalid_path:` whether or not it exists. Missing files get the original prefixes `config_not_found:` and
/// `prompt_not_found:`.
struct StartRequestValidator {
    let roots: WorkspaceRoots

    static let maxIterationsLimit = 100_000

    func plan(for request: StartSessionRequest) throws(APIError) -> RunSupervisor.StartPlan {
        guard let firstRoot = roots.paths.first else { throw .invalidPath("no workspace roots are configured") }
        let workingDirectory: String
        switch roots.resolve(try Self.expandingHome(request.workingDir ?? firstRoot, field: "working_dir"), relativeTo: firstRoot, kind: .directory) {
        case .success(let path): workingDirectory = path
        case .failure(let error): throw .invalidPath("working_dir: \(error)")
        }
        let root = roots.root(containing: workingDirectory) ?? firstRoot

        var arguments = ["run", "-c", try config(request.configPath, in: workingDirectory)]
        switch (request.promptPath, request.prompt) {
        case (let path?, nil):
            arguments += ["-P", try prompt(path, in: workingDirectory)]
        case (nil, let text?):
            let text = try TextLimit.steering.freeText(text, field: "prompt")
            arguments += ["-p", text]
        case (.some, .some):
            throw .invalidBody("give prompt_path or prompt, not both")
        case (nil, nil):
            throw .invalidBody("missing field 'prompt_path' (or 'prompt' with the prompt text)")
        }
        arguments += ["--autonomous", "--no-tui"]
        if let n = request.maxIterations {
            guard (1...Self.maxIterationsLimit).contains(n) else { throw .invalidBody("max_iterations must be between 1 and \(Self.maxIterationsLimit)") }
            arguments += ["--max-iterations", String(n)]
        }
        if let backend = request.backend {
            guard Self.isName(backend) else { throw .invalidBody("backend must be a name like 'claude' (letters, digits, '-', '_')") }
            arguments += ["-b", backend]
        }
        return RunSupervisor.StartPlan(workingDirectory: workingDirectory, root: root, arguments: arguments)
    }

    /// A config or preset file inside the roots (`.yml`/`.yaml`), `builtin:<name>`, or the bare name of exactly one
    /// config or preset `GET /api/configs` lists for the workspace (`feature`, `ralph`: what the original app's "New
    /// Ralph" wizard sends).
    func config(_ path: String, in workingDirectory: String) throws(APIError) -> String {
        if path.hasPrefix("builtin:") {
            guard Self.isName(String(path.dropFirst("builtin:".count))) else { throw .invalidPath("'\(path.prefix(80))' is not a builtin preset name") }
            return path
        }
        let given = try Self.expandingHome(path, field: "config_path")
        switch roots.resolve(given, relativeTo: workingDirectory, kind: .file) {
        case .success(let resolved):
            guard resolved.hasSuffix(".yml") || resolved.hasSuffix(".yaml") else { throw .invalidPath("config '\(path)' is not a .yml or .yaml file") }
            return resolved
        case .failure(.notFound), .failure(.wrongKind):
            if let named = try configNamed(path, in: workingDirectory) { return try config(named, in: workingDirectory) }
            let listed = PresetLibrary.configs(in: workingDirectory, roots: roots).map(\.name)
            throw .configNotFound("\(path) (no such file, and no listed config or preset is named so; listed: \(listed.isEmpty ? "none" : listed.joined(separator: ", ")))")
        case .failure(let error): throw .invalidPath("config_path: \(error)")
        }
    }

    /// The path of the one listed config or preset whose name is `name` (a bare name: no `/`, no extension); nil when
    /// none is; `invalid_path` naming them when several are.
    func configNamed(_ name: String, in workingDirectory: String) throws(APIError) -> String? {
        guard Self.isName(name) else { return nil }
        let matches = PresetLibrary.configs(in: workingDirectory, roots: roots).filter { $0.name == name }
        guard matches.count <= 1 else {
            throw .invalidPath("config_path: '\(name)' names several configs (\(matches.map(\.path).joined(separator: ", "))); give one's path")
        }
        return matches.first?.path
    }

    /// `~` and `~/…` are the server user's home (`$HOME`), as a shell would read them; the result is still confined
    /// to the roots by the caller. `~user` is refused: only this user's home is known.
    static func expandingHome(_ path: String, field: String, home: String? = ProcessInfo.processInfo.environment["HOME"]) throws(APIError) -> String {
        guard path.hasPrefix("~") else { return path }
        guard path == "~" || path.hasPrefix("~/") else { throw .invalidPath("\(field): '\(path.prefix(80))': only ~ (the server user's home) is expanded, not ~user") }
        guard let home, home.hasPrefix("/") else { throw .invalidPath("\(field): '~' cannot be expanded: the server has no HOME") }
        return home + path.dropFirst()
    }

    /// A prompt file inside the roots.
    func prompt(_ path: String, in workingDirectory: String) throws(APIError) -> String {
        switch roots.resolve(path, relativeTo: workingDirectory, kind: .file) {
        case .success(let resolved): return resolved
        case .failure(.notFound), .failure(.wrongKind): throw .promptNotFound(path)
        case .failure(let error): throw .invalidPath("prompt_path: \(error)")
        }
    }

    static func isName(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 64
            && s.unicodeScalars.allSatisfy { ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "-" || $0 == "_" }
    }
}
