import Foundation
import RalphAPI

/// The configs, presets, hats and prompts of a workspace, read the way the original server listed them
/// (reference §2.3), and the rules for which files the content routes may serve.
public enum PresetLibrary {
    /// `presets/*.yml|yaml` (not recursive), sorted by name. Files (or links) that resolve outside the roots are left
    /// out, so their content never shows, not even a description line.
    public static func presets(in workspace: String, roots: WorkspaceRoots) -> [PresetItem] {
        yamlFiles(in: workspace + "/presets", roots: roots).map { file in
            PresetItem(name: stem(file), path: "presets/" + file, description: description(ofFile: workspace + "/presets/" + file))
        }.sorted { ($0.name, $0.path) < ($1.name, $1.path) }
    }

    /// The presets, plus the workspace's own `ralph.yml`/`ralph.yaml` (ralph's default config).
    public static func configs(in workspace: String, roots: WorkspaceRoots) -> [ConfigItem] {
        var items = presets(in: workspace, roots: roots).map { ConfigItem(path: $0.path, name: $0.name, description: $0.description) }
        if let file = workspaceConfig(in: workspace, roots: roots) {
            let name = (file as NSString).lastPathComponent
            items.append(ConfigItem(path: name, name: stem(name), description: description(ofFile: file)))
        }
        return items.sorted { ($0.name, $0.path) < ($1.name, $1.path) }
    }

    /// Hats defined by the presets and the workspace config, de-duplicated by display name (presets in name order
    /// first, then the config), sorted by name. Files that are not valid YAML are skipped.
    public static func hats(in workspace: String, roots: WorkspaceRoots) -> [HatItem] {
        var files = presets(in: workspace, roots: roots).map(\.path)
        if let config = workspaceConfig(in: workspace, roots: roots) { files.append((config as NSString).lastPathComponent) }
        var byName: [String: HatItem] = [:]
        var order: [String] = []
        for file in files {
            guard let text = FileSystem.readText(workspace + "/" + file, limit: 4 << 20),
                let root = RalphYAML.mapping(text), let hats = root["hats"] as? [String: Any]
            else { continue }
            for id in hats.keys.sorted() {
                let definition = hats[id] as? [String: Any] ?? [:]
                let given = (definition["name"] as? String)?.trimmingCharacters(in: .whitespaces) ?? ""
                let name = given.isEmpty ? id : given
                if var existing = byName[name] {
                    existing.sources.append(file)
                    byName[name] = existing
                    continue
                }
                order.append(name)
                byName[name] = HatItem(
                    name: name, id: id, description: (definition["description"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "",
                    emoji: HatPalette.emoji(for: id), color: HatPalette.color(for: id), triggers: strings(definition["triggers"]),
                    publishes: strings(definition["publishes"]), sources: [file]
                )
            }
        }
        return order.compactMap { byName[$0] }.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    /// The workspace's `ralph.yml`/`ralph.yaml`, if it resolves inside the roots.
    public static func workspaceConfig(in workspace: String, roots: WorkspaceRoots) -> String? {
        guard let file = WorkspaceConfig.file(in: workspace), let real = FileSystem.realPath(file), roots.root(containing: real) != nil else { return nil }
        return file
    }

    /// `prompts/**/*.md`, sorted by path. Symbolic links are not followed.
    public static func prompts(in workspace: String) -> [PromptItem] {
        let base = workspace + "/prompts"
        var items: [PromptItem] = []
        var stack = [""]
        var visited = 0
        while let relative = stack.popLast(), visited < 10_000 {
            visited += 1
            let dir = relative.isEmpty ? base : base + "/" + relative
            for name in (FileSystem.list(dir) ?? []) where !name.hasPrefix(".") {
                let path = dir + "/" + name
                guard let status = FileSystem.status(path, followSymlinks: false) else { continue }
                let rel = relative.isEmpty ? name : relative + "/" + name
                if status.isDirectory {
                    stack.append(rel)
                } else if status.isRegularFile, name.hasSuffix(".md") {
                    items.append(PromptItem(path: "prompts/" + rel, name: stem(name), preview: preview(ofFile: path)))
                }
            }
        }
        return items.sorted { $0.path < $1.path }
    }

    // MARK: - Which files the content routes serve

    /// A config the `/api/configs/{path}` route may serve: YAML under `presets/`, or the workspace's `ralph.yml` /
    /// `ralph.yaml`. `path` is relative to the workspace; the result is the canonical file path.
    public static func configFile(_ path: String, workspace: String, roots: WorkspaceRoots) -> Result<String, WorkspaceRoots.PathError> {
        servedFile(path, workspace: workspace, roots: roots) { relative in
            let isYAML = relative.hasSuffix(".yml") || relative.hasSuffix(".yaml")
            return isYAML && (relative.hasPrefix("presets/") || relative == "ralph.yml" || relative == "ralph.yaml")
        } expected: { "a preset or config YAML file (presets/*.yml or ralph.yml)" }
    }

    /// A prompt the `/api/prompts/{path}` route may serve: markdown under `prompts/`.
    public static func promptFile(_ path: String, workspace: String, roots: WorkspaceRoots) -> Result<String, WorkspaceRoots.PathError> {
        servedFile(path, workspace: workspace, roots: roots) { relative in
            relative.hasPrefix("prompts/") && relative.hasSuffix(".md")
        } expected: { "a markdown file under prompts/" }
    }

    static func servedFile(
        _ path: String, workspace: String, roots: WorkspaceRoots, allowed: (String) -> Bool, expected: () -> String
    ) -> Result<String, WorkspaceRoots.PathError> {
        // Absolute paths are refused outright: these routes take paths relative to the workspace.
        if path.hasPrefix("/") { return .failure(.outsideRoots(path)) }
        // Lexically inside the workspace and of the right kind, before anything touches the disk.
        let lexical = FileSystem.join(workspace, path)
        let relative = FileSystem.relative(lexical, to: workspace)
        guard !relative.hasPrefix("/"), relative != "." else { return .failure(.outsideRoots(path)) }
        guard allowed(relative) else { return .failure(.wrongKind(path, expected: expected())) }
        switch roots.resolve(path, relativeTo: workspace, kind: .file) {
        case .success(let real):
            // After symbolic links: still inside the workspace, still of the right kind.
            let realRelative = FileSystem.relative(real, to: workspace)
            guard !realRelative.hasPrefix("/") else { return .failure(.outsideRoots(path)) }
            guard allowed(realRelative) else { return .failure(.wrongKind(path, expected: expected())) }
            return .success(real)
        case .failure(let error):
            return .failure(error)
        }
    }

    // MARK: - Helpers

    static func yamlFiles(in dir: String, roots: WorkspaceRoots) -> [String] {
        (FileSystem.list(dir) ?? []).filter { name in
            guard (name.hasSuffix(".yml") || name.hasSuffix(".yaml")), !name.hasPrefix("."), let real = FileSystem.realPath(dir + "/" + name) else { return false }
            return FileSystem.status(real)?.isRegularFile == true && roots.root(containing: real) != nil
        }
    }

    static func stem(_ name: String) -> String {
        let file = (name as NSString).lastPathComponent
        return (file as NSString).deletingPathExtension
    }

    /// The first non-blank line, when it is a `#` comment, without its `#`s.
    public static func description(ofText text: String) -> String {
        guard let line = text.split(whereSeparator: \.isNewline).first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { return "" }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("#") else { return "" }
        return trimmed.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
    }

    static func description(ofFile path: String) -> String {
        FileSystem.readText(path, limit: 64 * 1024).map(description(ofText:)) ?? ""
    }

    /// First non-blank trimmed line; over 50 bytes it is cut to at most 47 bytes on a character boundary, plus `...`.
    public static func preview(ofText text: String) -> String {
        guard let line = text.split(whereSeparator: \.isNewline).first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { return "" }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.utf8.count > 50 else { return trimmed }
        var cut = ""
        for character in trimmed {
            if cut.utf8.count + String(character).utf8.count > 47 { break }
            cut.append(character)
        }
        return cut + "..."
    }

    static func preview(ofFile path: String) -> String {
        FileSystem.readText(path, limit: 64 * 1024).map(preview(ofText:)) ?? ""
    }

    static func strings(_ value: Any?) -> [String] {
        if let list = value as? [Any] { return list.compactMap { $0 as? String } }
        if let single = value as? String { return [single] }
        return []
    }
}
