import AgentRunner
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
        switch roots.resolve(request.workingDir ?? firstRoot, relativeTo: firstRoot, kind: .directory) {
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

    /// A config or preset file inside the roots (`.yml`/`.yaml`), or `builtin:<name>`.
    func config(_ path: String, in workingDirectory: String) throws(APIError) -> String {
        if path.hasPrefix("builtin:") {
            guard Self.isName(String(path.dropFirst("builtin:".count))) else { throw .invalidPath("'\(path.prefix(80))' is not a builtin preset name") }
            return path
        }
        switch roots.resolve(path, relativeTo: workingDirectory, kind: .file) {
        case .success(let resolved):
            guard resolved.hasSuffix(".yml") || resolved.hasSuffix(".yaml") else { throw .invalidPath("config '\(path)' is not a .yml or .yaml file") }
            return resolved
        case .failure(.notFound), .failure(.wrongKind): throw .configNotFound(path)
        case .failure(let error): throw .invalidPath("config_path: \(error)")
        }
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
