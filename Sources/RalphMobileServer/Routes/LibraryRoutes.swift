import AgentRunner
import Foundation
import Hummingbird
import NIOPosix
import RalphAPI
import RalphFiles

/// Configs, presets, hats, prompts and skills of a workspace, and config export/import.
struct LibraryRoutes {
    let selector: WorkspaceSelector
    let roots: WorkspaceRoots
    let supervisor: RunSupervisor

    func register(on routes: Routes) {
        listing("/api/configs", on: routes.viewer) { workspace in ConfigsResponse(configs: PresetLibrary.configs(in: workspace, roots: roots)) }
        routes.viewer.get("/api/configs/**") { request, context in
            try await content(request, context, contentType: "yaml", notFound: .configNotFound) { path, workspace in
                PresetLibrary.configFile(path, workspace: workspace, roots: roots)
            }
        }
        listing("/api/prompts", on: routes.viewer) { workspace in PromptsResponse(prompts: PresetLibrary.prompts(in: workspace, roots: roots)) }
        routes.viewer.get("/api/prompts/**") { request, context in
            try await content(request, context, contentType: "markdown", notFound: .promptNotFound) { path, workspace in
                PresetLibrary.promptFile(path, workspace: workspace, roots: roots)
            }
        }
        listing("/api/presets", on: routes.viewer) { workspace in PresetsResponse(presets: PresetLibrary.presets(in: workspace, roots: roots)) }
        listing("/api/hats", on: routes.viewer) { workspace in HatsResponse(hats: PresetLibrary.hats(in: workspace, roots: roots)) }
        routes.viewer.get("/api/skills") { request, _ in
            let skills = try await skills(request)
            return JSONResponse.make(SkillsResponse(skills: skills.map(\.item), count: skills.count))
        }
        routes.viewer.get("/api/skills/{name}") { request, context in
            return JSONResponse.make(try await skill(named: context.parameters.get("name") ?? "", request).item)
        }
        routes.viewer.post("/api/skills/{name}/load") { request, context in
            let skill = try await skill(named: context.parameters.get("name") ?? "", request)
            if let body = skill.body { return JSONResponse.make(SkillContentResponse(name: skill.item.name, content: SkillRegistry.wrap(name: skill.item.name, body: body))) }
            // A built-in: its text is compiled into ralph, which prints it.
            let workspace = try await selector.workspace(for: request)
            let output = try await supervisor.runRalphCommand(["tools", "skill", "load", skill.item.name], in: workspace, timeout: 30)
            guard output.exit == .exited(0) else {
                throw APIError.internalError("`ralph tools skill load \(skill.item.name)` failed (\(output.exit)): \(output.text.suffix(500))")
            }
            return JSONResponse.make(SkillContentResponse(name: skill.item.name, content: output.text.trimmingCharacters(in: .newlines)))
        }
        routes.viewer.post("/api/config/export") { request, _ in
            let workspace = try await selector.workspace(for: request)
            let exported = try await blocking { () -> ConfigExportResponse? in
                guard let (file, text) = PresetLibrary.workspaceConfigText(in: workspace, roots: roots) else { return nil }
                return ConfigExportResponse(content: text, filename: (file as NSString).lastPathComponent)
            }
            guard let exported else { throw APIError.configNotFound("no ralph configuration file (ralph.yml or ralph.yaml) in \(workspace)") }
            return JSONResponse.make(exported)
        }
        routes.admin.post("/api/config/import") { request, context in
            let body = try await request.decode(as: ConfigImportRequest.self, context: context)
            try TextLimit.config.check(body.content, field: "content", verb: "larger")
            let problems = RalphConfigValidator.problems(in: body.content)
            guard problems.isEmpty else { throw APIError.other(.badRequest, .invalidConfig, problems.joined(separator: "; ")) }
            let workspace = try await selector.workspace(for: request)
            return JSONResponse.make(try await blocking { try Self.importConfig(body.content, into: workspace, roots: roots) })
        }
    }

    /// A route listing something of the selected workspace, computed on the thread pool.
    func listing<T: Encodable & Sendable>(_ path: RouterPath, on group: AccessGroup, _ produce: @escaping @Sendable (String) -> T) {
        group.get(path) { request, _ in
            let workspace = try await selector.workspace(for: request)
            return JSONResponse.make(try await blocking { produce(workspace) })
        }
    }

    /// Writes the workspace's config (`ralph.yml`, or the `ralph.yaml` it already has), keeping the old file as
    /// `<name>.bak-YYYYMMDD-HHMMSS`; every file opened under the workspace's root. Blocking.
    static func importConfig(_ content: String, into workspace: String, roots: WorkspaceRoots) throws -> ConfigImportResponse {
        guard let root = roots.directory(containing: workspace) else { throw APIError.invalidPath("workspace: '\(workspace)' is outside the workspace roots") }
        let existing = PresetLibrary.workspaceConfig(in: workspace, roots: roots)
        let target = existing ?? workspace + "/ralph.yml"
        let name = (target as NSString).lastPathComponent
        var backup: String?
        do {
            // A ralph.yml that links out of the root is refused here, before anything is written.
            if let old = try root.readFile(target, limit: 4 << 20) {
                let stamp = Timestamp.format(Date()).prefix(19).filter(\.isNumber)
                let backupName = "\(name).bak-\(stamp.prefix(8))-\(stamp.dropFirst(8))"
                try root.writeAtomically(Data(old.bytes), to: workspace + "/" + backupName, mode: mode_t(old.status.mode))
                backup = backupName
            }
            try root.writeAtomically(Data(content.utf8), to: target)
        } catch {
            throw APIError(error, doing: "write \(name)")
        }
        return ConfigImportResponse(status: "Configuration imported successfully", path: name, backup: backup)
    }

    /// `GET /api/configs/{path}`, `/api/prompts/{path}`: a file the route may serve, opened under the workspace's root
    /// and read through that descriptor.
    func content(
        _ request: Request, _ context: AppRequestContext, contentType: String, notFound: ErrorPrefix,
        read: @escaping @Sendable (String, String) -> Result<PresetLibrary.ServedFile, WorkspaceRoots.PathError>
    ) async throws -> Response {
        let path = try PathParameter.decode(context)
        let workspace = try await selector.workspace(for: request)
        let text = try await blocking { () throws -> String in
            switch read(path, workspace) {
            case .success(let file):
                return file.content
            case .failure(.notFound):
                throw APIError.other(.notFound, notFound, path)
            case .failure(.unreadable(_, let reason)):
                throw APIError.other(.notFound, notFound, "\(path.prefix(200)): \(reason)")
            case .failure(let error):
                throw APIError.invalidPath(error.description)
            }
        }
        return JSONResponse.make(FileContentResponse(path: path, content: text, contentType: contentType))
    }

    func skills(_ request: Request) async throws -> [SkillRegistry.Skill] {
        let workspace = try await selector.workspace(for: request)
        let roots = self.roots
        return try await blocking { SkillRegistry.skills(workspace: workspace, roots: roots).skills }
    }

    func skill(named name: String, _ request: Request) async throws -> SkillRegistry.Skill {
        guard let skill = try await skills(request).first(where: { $0.item.name == name }) else {
            throw APIError.other(.notFound, .skillNotFound, "no skill named '\(name.prefix(100))'")
        }
        return skill
    }
}

/// Runs blocking file work on the thread pool.
func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await NIOThreadPool.singleton.runIfActive(work)
}
