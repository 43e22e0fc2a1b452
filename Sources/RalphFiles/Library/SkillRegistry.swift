import Foundation
import RalphAPI

/// The skills ralph would offer in a workspace, read as ralph reads them.
///
/// - Directories come from the workspace config's `skills.dirs` (none by default); a relative one is taken from the
///   workspace, or from the nearest parent that has it. Only directories inside the workspace roots are read; others
///   are reported as skipped.
/// - In a directory, `*.md` is a skill named after the file, `<sub>/SKILL.md` one named after the sub-directory; front
///   matter (`---` … `---`) may set `name`, `description`, `tags`, `hats`, `backends`.
/// - ralph's two built-ins (`ralph-tools`, `robot-interaction`) are listed too; their text is compiled into ralph.
/// - `skills.overrides.<name>` can disable a skill or replace its hats, backends, tags and `auto_inject`.
/// - `skills.enabled: false` means no skills.
public enum SkillRegistry {
    public struct Skill: Sendable, Equatable {
        public var item: SkillItem
        /// The text after the front matter (file skills).
        public var body: String?
    }

    public struct Result: Sendable {
        public var skills: [Skill]
        /// Configured directories that were not read, with the reason.
        public var skipped: [String]
    }

    public static let builtins = ["ralph-tools", "robot-interaction"]

    public static func skills(workspace: String, roots: WorkspaceRoots) -> Result {
        var config: [String: Any] = [:]
        if let (_, text) = PresetLibrary.workspaceConfigText(in: workspace, roots: roots, limit: 1 << 20),
            let mapping = RalphYAML.mapping(text), let section = mapping["skills"] as? [String: Any]
        {
            config = section
        }
        if config["enabled"] as? Bool == false { return Result(skills: [], skipped: []) }
        var byName: [String: Skill] = [:]
        for name in builtins {
            byName[name] = Skill(
                item: SkillItem(name: name, description: "built into ralph", tags: [], hats: [], backends: [], autoInject: false, source: "built-in", path: nil),
                body: nil
            )
        }
        var skipped: [String] = []
        for dir in PresetLibrary.strings(config["dirs"]) {
            guard let resolved = resolveDirectory(dir, workspace: workspace) else {
                skipped.append("\(dir): not a directory")
                continue
            }
            guard let root = roots.directory(containing: resolved) else {
                skipped.append("\(dir): outside the workspace roots")
                continue
            }
            for skill in scan(resolved, workspace: workspace, root: root) { byName[skill.item.name] = skill }
        }
        for (name, value) in (config["overrides"] as? [String: Any]) ?? [:] {
            guard var skill = byName[name], let override = value as? [String: Any] else { continue }
            if override["enabled"] as? Bool == false {
                byName[name] = nil
                continue
            }
            for (key, keyPath) in [("hats", \SkillItem.hats), ("backends", \SkillItem.backends), ("tags", \SkillItem.tags)] {
                let values = PresetLibrary.strings(override[key])
                if !values.isEmpty { skill.item[keyPath: keyPath] = values }
            }
            if let inject = override["auto_inject"] as? Bool { skill.item.autoInject = inject }
            byName[name] = skill
        }
        return Result(skills: byName.values.sorted { $0.item.name < $1.item.name }, skipped: skipped)
    }

    /// ralph's `resolve_skill_dir`: absolute as is; relative from the workspace, else from the nearest parent that has
    /// it. Canonical path, or nil if there is no such directory.
    static func resolveDirectory(_ dir: String, workspace: String) -> String? {
        if dir.hasPrefix("/") { return FileSystem.realPath(dir).flatMap { FileSystem.status($0)?.isDirectory == true ? $0 : nil } }
        var base = workspace
        while true {
            if let real = FileSystem.realPath(FileSystem.join(base, dir)), FileSystem.status(real)?.isDirectory == true { return real }
            if base == "/" || base.isEmpty { return nil }
            base = (base as NSString).deletingLastPathComponent
        }
    }

    /// The skills of one directory, listed and read under the root that holds it: a skill file (or a directory holding
    /// a `SKILL.md`) that leads out of the root through a symbolic link is not read; links that stay inside are followed.
    static func scan(_ dir: String, workspace: String, root: RootDirectory) -> [Skill] {
        var skills: [Skill] = []
        for name in ((try? root.list(dir)) ?? []).map(\.name).sorted() where !name.hasPrefix(".") {
            let path = dir + "/" + name
            guard let status = try? root.status(path) else { continue }
            if status.isRegularFile, name.hasSuffix(".md") {
                if let skill = load(path, fallbackName: String(name.dropLast(3)), workspace: workspace, root: root) { skills.append(skill) }
            } else if status.isDirectory {
                if let skill = load(path + "/SKILL.md", fallbackName: name, workspace: workspace, root: root) { skills.append(skill) }
            }
        }
        return skills
    }

    /// A skill file read through its descriptor; nil when it is missing, not a regular file or not under the root.
    static func load(_ file: String, fallbackName: String, workspace: String, root: RootDirectory) -> Skill? {
        guard let text = (try? root.readFile(file, limit: 4 << 20))?.text else { return nil }
        let (front, body) = frontMatter(text)
        let name = (front["name"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? fallbackName
        let item = SkillItem(
            name: name, description: front["description"] as? String ?? "", tags: PresetLibrary.strings(front["tags"]),
            hats: PresetLibrary.strings(front["hats"]), backends: PresetLibrary.strings(front["backends"]), autoInject: false, source: "file",
            path: FileSystem.relative(file, to: workspace)
        )
        return Skill(item: item, body: body)
    }

    /// ralph's front-matter split: the trimmed text must start with `---`; the YAML runs to the next `\n---`; the body
    /// follows with leading newlines removed. Invalid YAML still has its block removed; no closing line means no front
    /// matter.
    static func frontMatter(_ raw: String) -> (fields: [String: Any], body: String) {
        let text = raw.drop { $0.isWhitespace }
        guard text.hasPrefix("---") else { return ([:], raw) }
        let afterOpen = text.dropFirst(3)
        guard let close = afterOpen.range(of: "\n---") else { return ([:], raw) }
        let yaml = String(afterOpen[..<close.lowerBound])
        let body = String(afterOpen[close.upperBound...]).drop { $0 == "\n" }
        let fields = RalphYAML.mapping(yaml) ?? [:]
        return (fields, String(body))
    }

    /// How ralph hands a loaded skill to the agent: `<name-skill>\n…\n</name-skill>`.
    public static func wrap(name: String, body: String) -> String {
        "<\(name)-skill>\n\(body)\n</\(name)-skill>"
    }
}
