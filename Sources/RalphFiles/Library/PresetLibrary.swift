import Foundation
import RalphAPI

/// The configs, presets, hats and prompts of a workspace, read the way the original server listed them
/// (reference §2.3), and the rules for which files the content routes may serve.
///
/// Every listing and every read goes through the workspace's ``RootDirectory`` (the root of ``WorkspaceRoots`` that
/// holds it): directories are listed through their descriptors and files read through the descriptor that was opened,
/// so a link out of the root, or a directory swapped for one while a request runs, never yields an outside byte.
public enum PresetLibrary {
    /// `presets/*.yml|yaml` (not recursive) and TOML preset directories (`presets/<name>/` with `autoloops.toml` and
    /// `topology.toml`, ralph ≥ 2.9.3; see `PresetLibrary+TOML.swift`), sorted by name. Files (or links) that lead outside the root are left out,
    /// so their content never shows, not even a description line.
    public static func presets(in workspace: String, roots: WorkspaceRoots) -> [PresetItem] {
        guard let root = roots.directory(containing: workspace) else { return [] }
        let directory = RalphLayout(workspace: workspace).presets
        let yaml = yamlFiles(in: directory, root: root).map { file in
            PresetItem(name: stem(file), path: "presets/" + file, description: description(ofFile: directory + "/" + file, root: root))
        }
        return (yaml + tomlPresets(in: directory, root: root)).sorted { ($0.name, $0.path) < ($1.name, $1.path) }
    }

    /// The presets, plus the workspace's own `ralph.yml`/`ralph.yaml` (ralph's default config).
    public static func configs(in workspace: String, roots: WorkspaceRoots) -> [ConfigItem] {
        // A TOML preset is started with `-H <name>`, not `-c <file>`: it is no config to start a run with.
        var items = presets(in: workspace, roots: roots).filter { !$0.path.hasSuffix(".toml") }.map {
            ConfigItem(path: $0.path, name: $0.name, description: $0.description)
        }
        if let file = workspaceConfig(in: workspace, roots: roots), let root = roots.directory(containing: workspace) {
            let name = (file as NSString).lastPathComponent
            items.append(ConfigItem(path: name, name: stem(name), description: description(ofFile: file, root: root)))
        }
        return items.sorted { ($0.name, $0.path) < ($1.name, $1.path) }
    }

    /// Hats defined by the presets and the workspace config, de-duplicated by display name (presets in name order
    /// first, then the config), sorted by name. Files that are not valid YAML are skipped.
    public static func hats(in workspace: String, roots: WorkspaceRoots) -> [HatItem] {
        guard let root = roots.directory(containing: workspace) else { return [] }
        var files = presets(in: workspace, roots: roots).map(\.path)
        if let config = workspaceConfig(in: workspace, roots: roots) { files.append((config as NSString).lastPathComponent) }
        var byName: [String: HatItem] = [:]
        var order: [String] = []
        // TOML preset directories are listed and served as text; their roles are not read as hats (see
        // PresetLibrary+TOML.swift).
        for file in files where !file.hasSuffix(".toml") {
            guard let text = (try? root.readFile(workspace + "/" + file, limit: 4 << 20))?.text,
                let mapping = RalphYAML.mapping(text), let hats = mapping["hats"] as? [String: Any]
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

    /// The workspace's `ralph.yml`/`ralph.yaml`, if it is a regular file reached inside the root.
    public static func workspaceConfig(in workspace: String, roots: WorkspaceRoots) -> String? {
        guard let root = roots.directory(containing: workspace) else { return nil }
        return WorkspaceConfig.file(in: workspace, root: root)
    }

    /// The workspace's config file and its text, read through one descriptor under the root; nil when there is none
    /// (or it leads out of the root).
    public static func workspaceConfigText(in workspace: String, roots: WorkspaceRoots, limit: Int = 4 << 20) -> (path: String, text: String)? {
        guard let file = workspaceConfig(in: workspace, roots: roots), let root = roots.directory(containing: workspace),
            let content = try? root.readFile(file, limit: limit)
        else { return nil }
        return (file, content.text)
    }

    /// `prompts/**/*.md`, sorted by path. Symbolic links are not followed: entries are listed by what their directory
    /// says they are, and read with ``RootDirectory/Links/refused``.
    public static func prompts(in workspace: String, roots: WorkspaceRoots) -> [PromptItem] {
        guard let root = roots.directory(containing: workspace) else { return [] }
        let base = workspace + "/prompts"
        var items: [PromptItem] = []
        var stack = [""]
        var visited = 0
        while let relative = stack.popLast(), visited < 10_000 {
            visited += 1
            let dir = relative.isEmpty ? base : base + "/" + relative
            for entry in (try? root.list(dir, links: .refused)) ?? [] where !entry.name.hasPrefix(".") {
                let rel = relative.isEmpty ? entry.name : relative + "/" + entry.name
                if entry.kind == .directory {
                    stack.append(rel)
                } else if entry.kind == .file, entry.name.hasSuffix(".md") {
                    let text = (try? root.readFile(dir + "/" + entry.name, limit: 64 * 1024, links: .refused))?.text
                    items.append(PromptItem(path: "prompts/" + rel, name: stem(entry.name), preview: text.map(preview(ofText:)) ?? ""))
                }
            }
        }
        return items.sorted { $0.path < $1.path }
    }

    // MARK: - Which files the content routes serve

    /// A file a content route read: where it really is, and its text.
    public struct ServedFile: Sendable, Equatable {
        /// The canonical path of the file that was opened (links resolved).
        public var path: String
        public var content: String
    }

    /// The largest file the content routes serve.
    public static let servedLimit = 4 << 20

    /// A config the `/api/configs/{path}` route may serve: YAML under `presets/`, or the workspace's `ralph.yml` /
    /// `ralph.yaml`. `path` is relative to the workspace.
    public static func configFile(_ path: String, workspace: String, roots: WorkspaceRoots) -> Result<ServedFile, WorkspaceRoots.PathError> {
        servedFile(path, workspace: workspace, roots: roots) { relative in
            let isYAML = relative.hasSuffix(".yml") || relative.hasSuffix(".yaml")
            return isYAML && (relative.hasPrefix("presets/") || RalphLayout.configNames.contains(relative)) || isTOMLPresetFile(relative)
        } expected: { "a preset or config file (presets/*.yml, presets/<name>/autoloops.toml or topology.toml, or ralph.yml)" }
    }

    /// A prompt the `/api/prompts/{path}` route may serve: markdown under `prompts/`.
    public static func promptFile(_ path: String, workspace: String, roots: WorkspaceRoots) -> Result<ServedFile, WorkspaceRoots.PathError> {
        servedFile(path, workspace: workspace, roots: roots) { relative in
            relative.hasPrefix("prompts/") && relative.hasSuffix(".md")
        } expected: { "a markdown file under prompts/" }
    }

    /// Checks the name lexically (inside the workspace, of the right kind) before anything touches the disk, then
    /// opens it under the root (no link out of the root followed, whatever changes meanwhile), checks the kind of the
    /// file that was opened (links inside the root may rename it), and reads it through the same descriptor.
    static func servedFile(
        _ path: String, workspace: String, roots: WorkspaceRoots, allowed: (String) -> Bool, expected: () -> String
    ) -> Result<ServedFile, WorkspaceRoots.PathError> {
        if path.isEmpty { return .failure(.empty) }
        if path.utf8.count > 4096 { return .failure(.tooLong) }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return .failure(.invalidCharacters(path)) }
        // Absolute paths are refused outright: these routes take paths relative to the workspace.
        if path.hasPrefix("/") { return .failure(.outsideRoots(path)) }
        let lexical = FileSystem.join(workspace, path)
        let relative = FileSystem.relative(lexical, to: workspace)
        guard !relative.hasPrefix("/"), relative != "." else { return .failure(.outsideRoots(path)) }
        guard allowed(relative) else { return .failure(.wrongKind(path, expected: expected())) }
        guard let root = roots.directory(containing: lexical) else { return .failure(.outsideRoots(path)) }
        do throws(ConfinementError) {
            guard let (content, location) = try root.readFileAndLocation(lexical, limit: servedLimit) else { return .failure(.notFound(path)) }
            // The file that was opened: still inside the workspace, still of the right kind.
            let realRelative = FileSystem.relative(location, to: workspace)
            guard !realRelative.hasPrefix("/") else { return .failure(.outsideRoots(path)) }
            guard allowed(realRelative) else { return .failure(.wrongKind(path, expected: expected())) }
            return .success(ServedFile(path: location, content: content.text))
        } catch {
            return .failure(WorkspaceRoots.PathError(error, path: path))
        }
    }

    // MARK: - Helpers

    /// Names of `*.yml|yaml` entries of `dir` that are regular files reached inside the root (links that stay inside
    /// are followed).
    static func yamlFiles(in dir: String, root: RootDirectory) -> [String] {
        ((try? root.list(dir)) ?? []).map(\.name).filter { name in
            guard name.hasSuffix(".yml") || name.hasSuffix(".yaml"), !name.hasPrefix(".") else { return false }
            return (try? root.status(dir + "/" + name))?.isRegularFile == true
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

    static func description(ofFile path: String, root: RootDirectory) -> String {
        (try? root.readFile(path, limit: 64 * 1024)).map { description(ofText: $0.text) } ?? ""
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

    static func strings(_ value: Any?) -> [String] {
        if let list = value as? [Any] { return list.compactMap { $0 as? String } }
        if let single = value as? String { return [single] }
        return []
    }
}
