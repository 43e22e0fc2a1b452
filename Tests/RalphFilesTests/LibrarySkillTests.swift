import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

private enum LibrarySkillFixture {
    static let alpha = """
        ---
        name: alpha-skill
        description: Does alpha things
        tags: [a, b]
        hats: [builder]
        backends: [claude]
        ---

        # Alpha

        Body text.

        """

    static let beta = "# Beta\n\nNo front matter here.\n"
    static let broken = "---\nname: [unclosed\ndescription: x\n---\nBody after broken front matter\n"
    static let noClose = "---\nname: never-closed\n\nThe whole text is the body\n"
    static let emptyName = "---\nname: \"\"\ndescription: Falls back to the file name\n---\nbody\n"

    /// A root holding a workspace and the files given (paths relative to the root), and what the registry lists there.
    struct Root {
        let root = TempDir()
        let ws: String

        init(workspace: String = "ws", _ files: KeyValuePairs<String, String>) {
            ws = root.dir(workspace)
            for (relative, text) in files { root.file(relative, text) }
        }

        var skills: SkillRegistry.Result { SkillRegistry.skills(workspace: ws, roots: WorkspaceRoots([root.path])) }
    }

    /// A workspace (inside the root `root/ws`) with a skills directory holding every kind of entry.
    static func workspace(config: String) -> (root: TempDir, ws: String, roots: WorkspaceRoots) {
        let root = TempDir()
        let ws = root.dir("ws")
        root.file("ws/ralph.yml", config)
        root.file("ws/skills/alpha.md", alpha)
        root.file("ws/skills/beta/SKILL.md", beta)
        root.file("ws/skills/broken.md", broken)
        root.file("ws/skills/noclose.md", noClose)
        root.file("ws/skills/empty-name.md", emptyName)
        root.file("ws/skills/notes.txt", "not a skill")
        root.file("ws/skills/.hidden.md", "hidden")
        root.file("ws/skills/nested/other.md", "only SKILL.md counts in a sub-directory")
        root.dir("ws/skills/empty-dir")
        return (root, ws, WorkspaceRoots([root.path]))
    }
}

@Suite("Library: skills")
struct LibrarySkillTests {
    @Test("without a config, or with no skills.dirs, only ralph's two built-ins are listed")
    func builtinsOnly() {
        let root = TempDir()
        let ws = root.dir("ws")
        let roots = WorkspaceRoots([root.path])
        for config in [nil, "cli:\n  backend: claude\n", "skills:\n  enabled: true\n", "skills:\n  dirs: []\n", "not: [valid yaml"] {
            if let config { root.file("ws/ralph.yml", config) }
            let result = SkillRegistry.skills(workspace: ws, roots: roots)
            #expect(result.skipped.isEmpty)
            #expect(result.skills == [
                SkillRegistry.Skill(
                    item: SkillItem(
                        name: "ralph-tools", description: "built into ralph", tags: [], hats: [], backends: [], autoInject: false, source: "built-in",
                        path: nil
                    ),
                    body: nil
                ),
                SkillRegistry.Skill(
                    item: SkillItem(
                        name: "robot-interaction", description: "built into ralph", tags: [], hats: [], backends: [], autoInject: false,
                        source: "built-in", path: nil
                    ),
                    body: nil
                ),
            ])
        }
        #expect(SkillRegistry.builtins == ["ralph-tools", "robot-interaction"])
    }

    @Test("a skills directory gives a skill per *.md (named after the file) and per <sub>/SKILL.md (named after the sub-directory)")
    func directorySkills() throws {
        let w = LibrarySkillFixture.workspace(config: "skills:\n  dirs: [skills]\n")
        let result = SkillRegistry.skills(workspace: w.ws, roots: w.roots)
        #expect(result.skipped.isEmpty)
        #expect(result.skills.map(\.item.name) == ["alpha-skill", "beta", "broken", "empty-name", "noclose", "ralph-tools", "robot-interaction"])

        let alpha = try #require(result.skills.first { $0.item.name == "alpha-skill" })
        #expect(alpha.item == SkillItem(
            name: "alpha-skill", description: "Does alpha things", tags: ["a", "b"], hats: ["builder"], backends: ["claude"], autoInject: false,
            source: "file", path: "skills/alpha.md"
        ))
        #expect(alpha.body == "# Alpha\n\nBody text.\n")

        let beta = try #require(result.skills.first { $0.item.name == "beta" })
        #expect(beta.item == SkillItem(
            name: "beta", description: "", tags: [], hats: [], backends: [], autoInject: false, source: "file", path: "skills/beta/SKILL.md"
        ))
        #expect(beta.body == LibrarySkillFixture.beta)
    }

    @Test("invalid front-matter YAML is still stripped from the body; without a closing --- the whole text is the body")
    func frontMatterEdgeCases() throws {
        let w = LibrarySkillFixture.workspace(config: "skills:\n  dirs: [skills]\n")
        let skills = SkillRegistry.skills(workspace: w.ws, roots: w.roots).skills

        let broken = try #require(skills.first { $0.item.name == "broken" })
        #expect(broken.body == "Body after broken front matter\n")
        #expect(broken.item.description == "")
        #expect(broken.item.path == "skills/broken.md")

        let noClose = try #require(skills.first { $0.item.name == "noclose" })
        #expect(noClose.body == LibrarySkillFixture.noClose)

        let emptyName = try #require(skills.first { $0.item.path == "skills/empty-name.md" })
        #expect(emptyName.item.name == "empty-name")
        #expect(emptyName.item.description == "Falls back to the file name")
        #expect(emptyName.body == "body\n")
    }

    @Test("front matter: leading whitespace before ---, a single string for a list, and the split itself")
    func frontMatterSplit() {
        let (fields, body) = SkillRegistry.frontMatter("\n\n  ---\nname: x\ntags: solo\n---\n\n\nText\n---\nnot front matter\n")
        #expect(fields["name"] as? String == "x")
        #expect(PresetLibrary.strings(fields["tags"]) == ["solo"])
        #expect(body == "Text\n---\nnot front matter\n")

        let plain = SkillRegistry.frontMatter("No front matter\n---\nstill body\n")
        #expect(plain.fields.isEmpty)
        #expect(plain.body == "No front matter\n---\nstill body\n")
    }

    @Test("a relative directory missing from the workspace is taken from the nearest parent that has it")
    func walkUp() throws {
        let r = LibrarySkillFixture.Root(workspace: "projects/ws", [
            "projects/ws/ralph.yml": "skills:\n  dirs: [shared-skills]\n",
            "shared-skills/gamma.md": "---\ndescription: From a parent\n---\nGamma body\n",
            "projects/shared-skills/delta.md": "nearer parent wins\n",
        ])
        let result = r.skills
        #expect(result.skipped.isEmpty)
        let names = result.skills.map(\.item.name)
        #expect(names == ["delta", "ralph-tools", "robot-interaction"])
        let delta = try #require(result.skills.first { $0.item.name == "delta" })
        // Outside the workspace, the path stays absolute.
        #expect(delta.item.path == r.root.path + "/projects/shared-skills/delta.md")
        #expect(delta.body == "nearer parent wins\n")
    }

    @Test("directories outside the workspace roots are skipped and reported, as are missing ones")
    func skippedDirectories() {
        let root = TempDir()
        let outside = TempDir()
        outside.file("evil.md", "---\nname: evil\n---\nexfiltrate\n")
        // A relative name that only exists above the roots (next to the temporary directories) is outside them too.
        let outsideName = (outside.path as NSString).lastPathComponent
        let ws = root.dir("ws")
        root.file("ws/local/ok.md", "fine\n")
        root.file("ws/ralph.yml", "skills:\n  dirs:\n    - \(outside.path)\n    - missing-skills\n    - \(outsideName)\n    - local\n    - \(root.path)/ws/local/ok.md\n")

        let result = SkillRegistry.skills(workspace: ws, roots: WorkspaceRoots([root.path]))
        #expect(result.skills.map(\.item.name) == ["ok", "ralph-tools", "robot-interaction"])
        #expect(result.skipped == [
            "\(outside.path): outside the workspace roots",
            "missing-skills: not a directory",
            "\(outsideName): outside the workspace roots",
            "\(root.path)/ws/local/ok.md: not a directory",
        ])
    }

    @Test("a symlinked skills directory pointing outside the roots is skipped")
    func symlinkedDirectoryOutside() throws {
        let root = TempDir()
        let outside = TempDir()
        outside.file("evil.md", "secret\n")
        let ws = root.dir("ws")
        try FileManager.default.createSymbolicLink(atPath: ws + "/skills", withDestinationPath: outside.path)
        root.file("ws/ralph.yml", "skills:\n  dirs: [skills]\n")
        let result = SkillRegistry.skills(workspace: ws, roots: WorkspaceRoots([root.path]))
        #expect(result.skills.map(\.item.name) == ["ralph-tools", "robot-interaction"])
        #expect(result.skipped == ["skills: outside the workspace roots"])
    }

    @Test(
        "a skill file or sub-directory inside a skills directory that links outside the roots is not read"
    )
    func symlinkedSkillFileOutside() throws {
        let root = TempDir()
        let outside = TempDir()
        let secret = outside.file("secret.md", "---\ndescription: SECRET description\n---\nSECRET body\n")
        let subdir = outside.dir("sub")
        outside.file("sub/SKILL.md", "SECRET sub body\n")
        let ws = root.dir("ws")
        root.file("ws/ralph.yml", "skills:\n  dirs: [skills]\n")
        root.file("ws/skills/fine.md", "fine\n")
        try FileManager.default.createSymbolicLink(atPath: ws + "/skills/leak.md", withDestinationPath: secret)
        try FileManager.default.createSymbolicLink(atPath: ws + "/skills/linked-sub", withDestinationPath: subdir)

        let skills = SkillRegistry.skills(workspace: ws, roots: WorkspaceRoots([root.path])).skills
        #expect(skills.map(\.item.name) == ["fine", "ralph-tools", "robot-interaction"])
        #expect(!skills.contains { ($0.body ?? "").contains("SECRET") || $0.item.description.contains("SECRET") })
    }

    @Test("a skill file linking to another file inside the roots is read")
    func symlinkedSkillFileInside() throws {
        let root = TempDir()
        let ws = root.dir("ws")
        let shared = root.file("shared/common.md", "---\nname: common\n---\nshared body\n")
        root.file("ws/ralph.yml", "skills:\n  dirs: [skills]\n")
        root.dir("ws/skills")
        try FileManager.default.createSymbolicLink(atPath: ws + "/skills/common.md", withDestinationPath: shared)
        let skills = SkillRegistry.skills(workspace: ws, roots: WorkspaceRoots([root.path])).skills
        let common = try #require(skills.first { $0.item.name == "common" })
        #expect(common.body == "shared body\n")
    }

    @Test("overrides disable a skill, replace hats, backends and tags, and set auto_inject; overrides of unknown skills are ignored")
    func overrides() throws {
        let config = """
            skills:
              dirs: [skills]
              overrides:
                ralph-tools:
                  enabled: false
                alpha-skill:
                  hats: [reviewer, fixer]
                  auto_inject: true
                robot-interaction:
                  tags: [human]
                  backends: [claude, gemini]
                beta:
                  enabled: true
                  hats: planner
                unknown-skill:
                  enabled: false
            """
        let w = LibrarySkillFixture.workspace(config: config)
        let skills = SkillRegistry.skills(workspace: w.ws, roots: w.roots).skills
        #expect(skills.map(\.item.name) == ["alpha-skill", "beta", "broken", "empty-name", "noclose", "robot-interaction"])

        let alpha = try #require(skills.first { $0.item.name == "alpha-skill" })
        #expect(alpha.item.hats == ["reviewer", "fixer"])
        #expect(alpha.item.autoInject)
        #expect(alpha.item.backends == ["claude"])
        #expect(alpha.item.tags == ["a", "b"])

        let robot = try #require(skills.first { $0.item.name == "robot-interaction" })
        #expect(robot.item.tags == ["human"])
        #expect(robot.item.backends == ["claude", "gemini"])
        #expect(!robot.item.autoInject)
        #expect(robot.item.source == "built-in")

        let beta = try #require(skills.first { $0.item.name == "beta" })
        #expect(beta.item.hats == ["planner"])
        #expect(!beta.item.autoInject)
    }

    @Test("skills.enabled: false means no skills at all")
    func disabled() {
        let w = LibrarySkillFixture.workspace(config: "skills:\n  enabled: false\n  dirs: [skills, missing]\n")
        let result = SkillRegistry.skills(workspace: w.ws, roots: w.roots)
        #expect(result.skills.isEmpty)
        #expect(result.skipped.isEmpty)
    }

    @Test("a file skill with a built-in's name replaces the built-in")
    func fileSkillReplacesBuiltin() throws {
        let r = LibrarySkillFixture.Root([
            "ws/ralph.yml": "skills:\n  dirs: [skills]\n", "ws/skills/ralph-tools.md": "---\ndescription: Local tools\n---\nLocal body\n",
        ])
        let skills = r.skills.skills
        #expect(skills.map(\.item.name) == ["ralph-tools", "robot-interaction"])
        let tools = try #require(skills.first)
        #expect(tools.item.source == "file")
        #expect(tools.item.description == "Local tools")
        #expect(tools.body == "Local body\n")
    }

    @Test("wrap hands a skill to the agent as <name-skill>…</name-skill>")
    func wrap() {
        #expect(SkillRegistry.wrap(name: "ralph-tools", body: "# Tools\nUse them.") == "<ralph-tools-skill>\n# Tools\nUse them.\n</ralph-tools-skill>")
        #expect(SkillRegistry.wrap(name: "x", body: "") == "<x-skill>\n\n</x-skill>")
    }
}
