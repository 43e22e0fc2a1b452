import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

/// A workspace `ws/` inside a root directory, with a sibling directory inside the same root and a second temporary
/// directory outside every root.
private struct LibraryPresetWorkspace {
    let root = TempDir()
    let outside = TempDir()
    var ws: String { root.path + "/ws" }
    var roots: WorkspaceRoots { WorkspaceRoots([root.path]) }

    init() {
        root.dir("ws")
    }

    @discardableResult
    func file(_ relative: String, _ text: String = "") -> String { root.file("ws/" + relative, text) }

    func link(_ relative: String, to destination: String) {
        let path = ws + "/" + relative
        try! FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try! FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: destination)
    }
}

private func isWrongKind(_ result: Result<PresetLibrary.ServedFile, WorkspaceRoots.PathError>, _ path: String) -> Bool {
    if case .failure(.wrongKind(let p, _)) = result { return p == path }
    return false
}

private func isOutside(_ result: Result<PresetLibrary.ServedFile, WorkspaceRoots.PathError>) -> Bool {
    if case .failure(.outsideRoots) = result { return true }
    return false
}

@Suite("Library: presets, configs, hats and prompts")
struct LibraryPresetTests {
    // MARK: - Presets and configs

    @Test("presets lists presets/*.yml and *.yaml non-recursively, sorted by name, skipping hidden files, directories and other extensions")
    func presetsListing() {
        let w = LibraryPresetWorkspace()
        w.file("presets/zeta.yml", "# Zeta\n")
        w.file("presets/feature.yml", "# Feature Development Preset\nevent_loop:\n  max_iterations: 10\n")
        w.file("presets/bugfix.yaml", "hats: {}\n")
        w.file("presets/minimal/nested.yml", "# Nested\n")
        w.file("presets/.hidden.yml", "# Hidden\n")
        w.file("presets/notes.txt", "# Notes\n")
        w.file("presets/readme.md", "# Readme\n")
        w.root.dir("ws/presets/dir.yml")

        let presets = PresetLibrary.presets(in: w.ws, roots: w.roots)
        #expect(presets.map(\.name) == ["bugfix", "feature", "zeta"])
        #expect(presets.map(\.path) == ["presets/bugfix.yaml", "presets/feature.yml", "presets/zeta.yml"])
        #expect(presets[1] == PresetItem(name: "feature", path: "presets/feature.yml", description: "Feature Development Preset"))
    }

    @Test("a preset's description is its first non-blank line when that is a # comment, with every leading # stripped")
    func presetDescriptions() {
        let w = LibraryPresetWorkspace()
        w.file("presets/a.yml", "# Plain comment\nhats: {}\n")
        w.file("presets/b.yml", "\n\n   ### Several hashes and spaces   \nhats: {}\n")
        w.file("presets/c.yml", "hats: {}\n# a comment on the second line\n")
        w.file("presets/d.yml", "")
        w.file("presets/e.yml", "#\nhats: {}\n")
        w.file("presets/f.yml", "#No space after the hash\r\nhats: {}\r\n")

        let descriptions = Dictionary(uniqueKeysWithValues: PresetLibrary.presets(in: w.ws, roots: w.roots).map { ($0.name, $0.description) })
        #expect(descriptions == [
            "a": "Plain comment",
            "b": "Several hashes and spaces",
            "c": "",
            "d": "",
            "e": "",
            "f": "No space after the hash",
        ])
    }

    @Test("a workspace without a presets directory has no presets")
    func noPresetsDirectory() {
        let w = LibraryPresetWorkspace()
        #expect(PresetLibrary.presets(in: w.ws, roots: w.roots).isEmpty)
        #expect(PresetLibrary.configs(in: w.ws, roots: w.roots).isEmpty)
        #expect(PresetLibrary.hats(in: w.ws, roots: w.roots).isEmpty)
        #expect(PresetLibrary.prompts(in: w.ws, roots: w.roots).isEmpty)
    }

    @Test("configs are the presets plus the workspace's ralph.yml, sorted by name")
    func configsIncludeRalphYml() {
        let w = LibraryPresetWorkspace()
        w.file("presets/alpha.yml", "# Alpha preset\n")
        w.file("presets/zeta.yaml", "")
        w.file("ralph.yml", "# The workspace config\ncli:\n  backend: claude\n")

        #expect(PresetLibrary.configs(in: w.ws, roots: w.roots) == [
            ConfigItem(path: "presets/alpha.yml", name: "alpha", description: "Alpha preset"),
            ConfigItem(path: "ralph.yml", name: "ralph", description: "The workspace config"),
            ConfigItem(path: "presets/zeta.yaml", name: "zeta", description: ""),
        ])
    }

    @Test("ralph.yaml is the config when there is no ralph.yml, and ralph.yml wins when both exist")
    func ralphYamlFallback() {
        let w = LibraryPresetWorkspace()
        w.file("ralph.yaml", "# yaml spelling\n")
        #expect(PresetLibrary.configs(in: w.ws, roots: w.roots) == [ConfigItem(path: "ralph.yaml", name: "ralph", description: "yaml spelling")])

        w.file("ralph.yml", "# yml spelling\n")
        #expect(PresetLibrary.configs(in: w.ws, roots: w.roots) == [ConfigItem(path: "ralph.yml", name: "ralph", description: "yml spelling")])
    }

    // MARK: - Hats

    static let presetA = """
        # Preset A
        hats:
          planner:
            name: "📋 Planner"
            description: Plans the work
            triggers: [task.start.custom]
            publishes: [build.task]
          builder:
            name: Builder
            description: "  Builds one task  \\n"
            triggers: [build.task]
            publishes: [build.done, build.blocked]
          committer:
            description: Commits
            triggers: review.approved
        """

    static let presetB = """
        hats:
          builder:
            name: Builder
            description: A second builder with the same display name
            triggers: [other.task]
          reviewer:
            name: ""
            description: Reviews
            triggers: [build.done]
            publishes: [review.approved]
        """

    static let ralphYml = """
        hats:
          fixer:
            name: Fixer
            description: Fixes
          architect:
            name: Architect
            description: Designs
          another_builder:
            name: Builder
            description: Third builder
        """

    @Test("hats come from presets and ralph.yml, named by name or id, deduplicated by display name with their sources accumulated")
    func hatsFromPresetsAndConfig() throws {
        let w = LibraryPresetWorkspace()
        w.file("presets/a.yml", Self.presetA)
        w.file("presets/b.yml", Self.presetB)
        w.file("ralph.yml", Self.ralphYml)

        let hats = PresetLibrary.hats(in: w.ws, roots: w.roots)
        #expect(hats.map(\.name) == ["Architect", "Builder", "Fixer", "committer", "reviewer", "📋 Planner"])

        let builder = try #require(hats.first { $0.name == "Builder" })
        #expect(builder == HatItem(
            name: "Builder", id: "builder", description: "Builds one task", emoji: "🏗️", color: "#c71585",
            triggers: ["build.task"], publishes: ["build.done", "build.blocked"], sources: ["presets/a.yml", "presets/b.yml", "ralph.yml"]
        ))

        let committer = try #require(hats.first { $0.id == "committer" })
        #expect(committer.name == "committer")
        #expect(committer.emoji == "🎩")
        #expect(committer.triggers == ["review.approved"])
        #expect(committer.publishes == [])
        #expect(committer.sources == ["presets/a.yml"])

        let reviewer = try #require(hats.first { $0.id == "reviewer" })
        #expect(reviewer.name == "reviewer")
        #expect(reviewer.emoji == "👀")
        #expect(reviewer.color == "#39ff14")
        #expect(reviewer.sources == ["presets/b.yml"])

        let planner = try #require(hats.first { $0.id == "planner" })
        #expect(planner.name == "📋 Planner")
        #expect(planner.emoji == "📋")
        #expect(planner.color == "#00d9ff")
        #expect(planner.description == "Plans the work")
        #expect(planner.triggers == ["task.start.custom"])

        let fixer = try #require(hats.first { $0.id == "fixer" })
        #expect(fixer.color == "#ff006e")
        #expect(fixer.emoji == "🔧")
        #expect(fixer.sources == ["ralph.yml"])

        let architect = try #require(hats.first { $0.id == "architect" })
        #expect(architect.color == "#ffd700")
        #expect(architect.emoji == "🏛️")
    }

    @Test("a preset that is not valid YAML is skipped for hats without losing the other presets")
    func brokenPresetSkipped() {
        let w = LibraryPresetWorkspace()
        w.file("presets/aaa-broken.yml", "# Broken\nhats:\n  planner: [unclosed\n    name: x\n")
        w.file("presets/list.yml", "- not\n- a mapping\n")
        w.file("presets/good.yml", "hats:\n  tester:\n    name: Tester\n    description: Tests\n")
        w.file("ralph.yml", "hats:\n  writer:\n    description: Writes\n")

        let hats = PresetLibrary.hats(in: w.ws, roots: w.roots)
        #expect(hats.map(\.name) == ["Tester", "writer"])
        #expect(hats.map(\.emoji) == ["🧪", "✍️"])
        #expect(hats.map(\.sources) == [["presets/good.yml"], ["ralph.yml"]])
        // The broken file is still a preset: listing does not parse it.
        #expect(PresetLibrary.presets(in: w.ws, roots: w.roots).map(\.name) == ["aaa-broken", "good", "list"])
    }

    @Test("hat colors: the five well-known hats have the theme colors, any other id a stable palette color")
    func hatPaletteColors() {
        #expect(HatPalette.color(for: "planner") == "#00d9ff")
        #expect(HatPalette.color(for: "builder") == "#c71585")
        #expect(HatPalette.color(for: "reviewer") == "#39ff14")
        #expect(HatPalette.color(for: "fixer") == "#ff006e")
        #expect(HatPalette.color(for: "architect") == "#ffd700")
        #expect(HatPalette.color(for: "Builder") == "#c71585")
        #expect(HatPalette.color(for: "📋 Planner") == "#00d9ff")

        for id in ["committer", "validator", "researcher", "x", "gap-analyst"] {
            let color = HatPalette.color(for: id)
            #expect(HatPalette.others.contains(color), "\(id) → \(color)")
            #expect(HatPalette.color(for: id) == color)
            #expect(HatPalette.color(for: id.uppercased()) == color)
        }
    }

    @Test(
        "a hat id that contains two well-known names gets the same color in every process"
    )
    func hatPaletteColorDeterministic() {
        // "builder-reviewer" contains both "builder" and "reviewer". `for (name, color) in known where
        // key.contains(name)` returns whichever the dictionary yields first, which differs from run to run: a stable
        // rule (e.g. the name that occurs first in the id) would always give the builder color.
        #expect(HatPalette.color(for: "builder-reviewer") == "#c71585")
        #expect(HatPalette.color(for: "planner_fixer") == "#00d9ff")
    }

    @Test("hat emoji is chosen by id, case-insensitively, with 🎩 for unknown ids")
    func hatEmoji() {
        let expected = [
            "builder": "🏗️", "reviewer": "👀", "investigator": "🔍", "tester": "🧪", "fixer": "🔧", "verifier": "✅", "planner": "📋",
            "architect": "🏛️", "deployer": "🚀", "analyst": "📊", "researcher": "📚", "writer": "✍️", "designer": "🎨",
            "security": "🔒", "coordinator": "🎯", "committer": "🎩", "loop": "🎩",
        ]
        for (id, emoji) in expected {
            #expect(HatPalette.emoji(for: id) == emoji, "\(id)")
            #expect(HatPalette.emoji(for: id.uppercased()) == emoji, "\(id)")
        }
    }

    // MARK: - Prompts

    @Test("prompts are prompts/**/*.md, recursive, hidden files and directories skipped, sorted by path")
    func promptsListing() {
        let w = LibraryPresetWorkspace()
        w.file("prompts/zeta.md", "Zeta prompt\n")
        w.file("prompts/alpha.md", "\n\n   Alpha first line   \nsecond line\n")
        w.file("prompts/sub/deep/x.md", "# Heading\n")
        w.file("prompts/sub/notes.txt", "not markdown\n")
        w.file("prompts/.hidden.md", "hidden\n")
        w.file("prompts/.drafts/y.md", "hidden dir\n")
        w.file("prompts/empty.md", "")
        w.file("PROMPT.md", "outside prompts/\n")

        #expect(PresetLibrary.prompts(in: w.ws, roots: w.roots) == [
            PromptItem(path: "prompts/alpha.md", name: "alpha", preview: "Alpha first line"),
            PromptItem(path: "prompts/empty.md", name: "empty", preview: ""),
            PromptItem(path: "prompts/sub/deep/x.md", name: "x", preview: "# Heading"),
            PromptItem(path: "prompts/zeta.md", name: "zeta", preview: "Zeta prompt"),
        ])
    }

    @Test("a long prompt's preview is cut in the listing")
    func promptListingPreviewCut() {
        let w = LibraryPresetWorkspace()
        w.file("prompts/long.md", String(repeating: "é", count: 30) + "\nmore\n")
        #expect(PresetLibrary.prompts(in: w.ws, roots: w.roots).map(\.preview) == [String(repeating: "é", count: 23) + "..."])
    }

    @Test("preview is the first non-blank trimmed line, unchanged up to 50 bytes")
    func previewShort() {
        #expect(PresetLibrary.preview(ofText: "") == "")
        #expect(PresetLibrary.preview(ofText: "\n  \n\t\n") == "")
        #expect(PresetLibrary.preview(ofText: "\n\n  \t Hello world \t \nsecond") == "Hello world")
        #expect(PresetLibrary.preview(ofText: "\r\n\r\nWindows line\r\nnext") == "Windows line")
        let fifty = String(repeating: "a", count: 50)
        #expect(PresetLibrary.preview(ofText: fifty) == fifty)
        // 48 bytes of ASCII plus one 2-byte character: exactly 50 bytes, not cut.
        let fiftyBytes = String(repeating: "a", count: 48) + "é"
        #expect(PresetLibrary.preview(ofText: fiftyBytes) == fiftyBytes)
    }

    @Test("over 50 bytes the preview keeps at most 47 bytes, cut on a character boundary, plus ...")
    func previewCut() {
        #expect(PresetLibrary.preview(ofText: String(repeating: "a", count: 51)) == String(repeating: "a", count: 47) + "...")
        // 2-byte characters: 23 fit in 47 bytes (46), the 24th would make 48.
        #expect(PresetLibrary.preview(ofText: String(repeating: "é", count: 30)) == String(repeating: "é", count: 23) + "...")
        // 4-byte emoji: 11 fit (44 bytes).
        #expect(PresetLibrary.preview(ofText: String(repeating: "👍", count: 13)) == String(repeating: "👍", count: 11) + "...")
        // An emoji that would straddle byte 47 is left out whole.
        #expect(PresetLibrary.preview(ofText: String(repeating: "a", count: 45) + "👍👍") == String(repeating: "a", count: 45) + "...")
        // 3-byte CJK characters: 15 fit (45 bytes).
        #expect(PresetLibrary.preview(ofText: String(repeating: "漢", count: 20)) == String(repeating: "漢", count: 15) + "...")
    }

    @Test("a cut preview never splits a multi-scalar emoji and is valid text no longer than 50 bytes")
    func previewClusters() {
        let samples = [
            String(repeating: "a", count: 43) + "🏗️" + "bbbb",  // U+1F3D7 U+FE0F, 7 bytes across byte 47
            String(repeating: "a", count: 40) + "👩‍👩‍👧‍👦" + "tail",  // family ZWJ sequence, 25 bytes
            String(repeating: "🇫🇷", count: 10),  // flags, 8 bytes each
        ]
        for text in samples {
            let preview = PresetLibrary.preview(ofText: text)
            #expect(preview.hasSuffix("..."))
            #expect(preview.utf8.count <= 50)
            let kept = String(preview.dropLast(3))
            #expect(kept.utf8.count <= 47)
            #expect(text.hasPrefix(kept))
            // Whole characters only: the kept part is a prefix of the text's characters.
            #expect(Array(text.prefix(kept.count)) == Array(kept))
        }
        #expect(PresetLibrary.preview(ofText: String(repeating: "a", count: 43) + "🏗️" + "bbbb") == String(repeating: "a", count: 43) + "...")
        #expect(PresetLibrary.preview(ofText: String(repeating: "🇫🇷", count: 10)) == String(repeating: "🇫🇷", count: 5) + "...")
    }

    @Test("prompt files that are symbolic links are not listed")
    func promptSymlinksNotListed() throws {
        let w = LibraryPresetWorkspace()
        w.file("prompts/real.md", "Real\n")
        let outsideMd = w.outside.file("secret.md", "SECRET first line\n")
        w.link("prompts/out.md", to: outsideMd)
        w.link("prompts/alias.md", to: "real.md")
        w.link("prompts/outdir", to: w.outside.path)
        #expect(PresetLibrary.prompts(in: w.ws, roots: w.roots).map(\.path) == ["prompts/real.md"])
    }

    @Test(
        "a preset that links outside the roots exposes nothing of the outside file"
    )
    func presetSymlinkOutside() {
        let w = LibraryPresetWorkspace()
        let secret = w.outside.file("secret.yml", "# SECRET description\nhats:\n  leaked:\n    name: Leaked\n    description: SECRET hat\n")
        w.link("presets/out.yml", to: secret)
        w.file("presets/fine.yml", "# Fine\n")
        #expect(!PresetLibrary.presets(in: w.ws, roots: w.roots).contains { $0.description.contains("SECRET") })
        #expect(!PresetLibrary.configs(in: w.ws, roots: w.roots).contains { $0.description.contains("SECRET") })
        #expect(PresetLibrary.hats(in: w.ws, roots: w.roots).isEmpty)
        #expect(isOutside(PresetLibrary.configFile("presets/out.yml", workspace: w.ws, roots: w.roots)))
    }

    // MARK: - Which files the content routes serve

    @Test("configFile serves presets/*.yml|yaml and ralph.yml as canonical paths; promptFile serves prompts/**/*.md")
    func servedFilesAllowed() {
        let w = LibraryPresetWorkspace()
        w.file("presets/feature.yml", "# f\n")
        w.file("presets/other.yaml", "")
        w.file("ralph.yml", "")
        w.file("prompts/a.md", "a")
        w.file("prompts/sub/b.md", "b")

        #expect(PresetLibrary.configFile("presets/feature.yml", workspace: w.ws, roots: w.roots).map(\.path) == .success(w.ws + "/presets/feature.yml"))
        #expect(PresetLibrary.configFile("presets/other.yaml", workspace: w.ws, roots: w.roots).map(\.path) == .success(w.ws + "/presets/other.yaml"))
        #expect(PresetLibrary.configFile("ralph.yml", workspace: w.ws, roots: w.roots).map(\.path) == .success(w.ws + "/ralph.yml"))
        #expect(PresetLibrary.configFile("./presets//feature.yml", workspace: w.ws, roots: w.roots).map(\.path) == .success(w.ws + "/presets/feature.yml"))
        #expect(PresetLibrary.configFile("presets/../ralph.yml", workspace: w.ws, roots: w.roots).map(\.path) == .success(w.ws + "/ralph.yml"))
        #expect(PresetLibrary.promptFile("prompts/a.md", workspace: w.ws, roots: w.roots).map(\.path) == .success(w.ws + "/prompts/a.md"))
        #expect(PresetLibrary.promptFile("prompts/sub/b.md", workspace: w.ws, roots: w.roots).map(\.path) == .success(w.ws + "/prompts/sub/b.md"))
    }

    @Test("ralph.yaml is served when it is the workspace config")
    func servedRalphYaml() {
        let w = LibraryPresetWorkspace()
        w.file("ralph.yaml", "")
        #expect(PresetLibrary.configFile("ralph.yaml", workspace: w.ws, roots: w.roots).map(\.path) == .success(w.ws + "/ralph.yaml"))
    }

    @Test("files of another kind are refused as wrongKind, even when they exist")
    func servedFilesWrongKind() {
        let w = LibraryPresetWorkspace()
        w.file("README.md", "")
        w.file("other.yml", "")
        w.file("secret.txt", "")
        w.file("presets/notes.txt", "")
        w.file("presets/feature.yml", "")
        w.file("prompts/a.md", "")
        w.file("prompts/x.txt", "")
        w.file(".ralph/agent/tasks.jsonl", "")

        for path in ["README.md", "other.yml", "secret.txt", "presets/notes.txt", "prompts/a.md", ".ralph/agent/tasks.jsonl", "presets"] {
            #expect(isWrongKind(PresetLibrary.configFile(path, workspace: w.ws, roots: w.roots), path), "config \(path)")
        }
        for path in ["README.md", "presets/feature.yml", "prompts/x.txt", "secret.txt", "ralph.yml", "prompts", "PROMPT.md"] {
            #expect(isWrongKind(PresetLibrary.promptFile(path, workspace: w.ws, roots: w.roots), path), "prompt \(path)")
        }
        // A directory whose name looks right is not a file.
        w.root.dir("ws/presets/dir.yml")
        w.root.dir("ws/prompts/dir.md")
        #expect(isWrongKind(PresetLibrary.configFile("presets/dir.yml", workspace: w.ws, roots: w.roots), "presets/dir.yml"))
        #expect(isWrongKind(PresetLibrary.promptFile("prompts/dir.md", workspace: w.ws, roots: w.roots), "prompts/dir.md"))
    }

    @Test("paths escaping the workspace with .. are refused, even when they stay inside the roots")
    func servedFilesDotDot() {
        let w = LibraryPresetWorkspace()
        w.root.file("other/presets/x.yml", "")
        w.root.file("other/prompts/x.md", "")
        w.root.file("ralph.yml", "")

        for path in ["../other/presets/x.yml", "presets/../../other/presets/x.yml", "../ralph.yml", "../../../../../../etc/passwd.yml", "..", "presets/../.."] {
            #expect(isOutside(PresetLibrary.configFile(path, workspace: w.ws, roots: w.roots)), "\(path)")
        }
        for path in ["../other/prompts/x.md", "prompts/../../other/prompts/x.md", "prompts/../../../etc/x.md"] {
            #expect(isOutside(PresetLibrary.promptFile(path, workspace: w.ws, roots: w.roots)), "\(path)")
        }
    }

    @Test("absolute paths are refused, even to the workspace's own files")
    func servedFilesAbsolute() {
        let w = LibraryPresetWorkspace()
        w.file("ralph.yml", "")
        w.file("prompts/a.md", "")
        #expect(isOutside(PresetLibrary.configFile(w.ws + "/ralph.yml", workspace: w.ws, roots: w.roots)))
        #expect(isOutside(PresetLibrary.configFile("/etc/passwd", workspace: w.ws, roots: w.roots)))
        #expect(isOutside(PresetLibrary.promptFile(w.ws + "/prompts/a.md", workspace: w.ws, roots: w.roots)))
        #expect(isOutside(PresetLibrary.promptFile("//prompts/a.md", workspace: w.ws, roots: w.roots)))
    }

    @Test("symbolic links are followed: outside the workspace is refused, to a file of the wrong kind is refused, inside and of the right kind is served")
    func servedFilesSymlinks() {
        let w = LibraryPresetWorkspace()
        w.file("secret.txt", "secret")
        w.file("ralph.yml", "")
        w.file("prompts/real.md", "real")
        w.root.file("other/presets/x.yml", "")
        let outsideYml = w.outside.file("secret.yml", "token: x")
        let outsideMd = w.outside.file("secret.md", "secret")
        let outsideDir = w.outside.dir("promptdir")
        w.outside.file("promptdir/leak.md", "secret")

        w.link("presets/out.yml", to: outsideYml)
        w.link("presets/sibling.yml", to: w.root.path + "/other/presets/x.yml")
        w.link("presets/relative-out.yml", to: "../../other/presets/x.yml")
        w.link("presets/leak.yml", to: w.ws + "/secret.txt")
        w.link("prompts/out.md", to: outsideMd)
        w.link("prompts/linked", to: outsideDir)
        w.link("prompts/config.md", to: w.ws + "/ralph.yml")
        w.link("prompts/alias.md", to: "real.md")
        w.link("presets/alias.yml", to: "../ralph.yml")

        #expect(isOutside(PresetLibrary.configFile("presets/out.yml", workspace: w.ws, roots: w.roots)))
        #expect(isOutside(PresetLibrary.configFile("presets/sibling.yml", workspace: w.ws, roots: w.roots)))
        #expect(isOutside(PresetLibrary.configFile("presets/relative-out.yml", workspace: w.ws, roots: w.roots)))
        #expect(isOutside(PresetLibrary.promptFile("prompts/out.md", workspace: w.ws, roots: w.roots)))
        #expect(isOutside(PresetLibrary.promptFile("prompts/linked/leak.md", workspace: w.ws, roots: w.roots)))
        #expect(isWrongKind(PresetLibrary.configFile("presets/leak.yml", workspace: w.ws, roots: w.roots), "presets/leak.yml"))
        #expect(isWrongKind(PresetLibrary.promptFile("prompts/config.md", workspace: w.ws, roots: w.roots), "prompts/config.md"))
        #expect(PresetLibrary.promptFile("prompts/alias.md", workspace: w.ws, roots: w.roots).map(\.path) == .success(w.ws + "/prompts/real.md"))
        #expect(PresetLibrary.configFile("presets/alias.yml", workspace: w.ws, roots: w.roots).map(\.path) == .success(w.ws + "/ralph.yml"))
    }

    @Test("missing files and dangling links are notFound")
    func servedFilesMissing() {
        let w = LibraryPresetWorkspace()
        w.link("presets/dangling.yml", to: w.ws + "/presets/nothing.yml")
        #expect(PresetLibrary.configFile("presets/missing.yml", workspace: w.ws, roots: w.roots) == .failure(.notFound("presets/missing.yml")))
        #expect(PresetLibrary.configFile("ralph.yml", workspace: w.ws, roots: w.roots) == .failure(.notFound("ralph.yml")))
        #expect(PresetLibrary.configFile("presets/dangling.yml", workspace: w.ws, roots: w.roots) == .failure(.notFound("presets/dangling.yml")))
        #expect(PresetLibrary.promptFile("prompts/missing.md", workspace: w.ws, roots: w.roots) == .failure(.notFound("prompts/missing.md")))
        #expect(PresetLibrary.promptFile("prompts/sub/missing.md", workspace: w.ws, roots: w.roots) == .failure(.notFound("prompts/sub/missing.md")))
    }

    @Test("NUL and control characters are refused as invalidCharacters")
    func servedFilesControlCharacters() {
        let w = LibraryPresetWorkspace()
        w.file("presets/a.yml", "")
        w.file("prompts/a.md", "")
        for path in ["presets/a\u{0}.yml", "presets/a.yml\u{0}.yml", "presets/a\n.yml", "presets/\u{1B}[31m.yml", "presets/a\u{7F}.yml"] {
            #expect(PresetLibrary.configFile(path, workspace: w.ws, roots: w.roots) == .failure(.invalidCharacters(path)), "\(path.debugDescription)")
        }
        for path in ["prompts/a\u{0}.md", "prompts/a\r.md", "prompts/\t.md"] {
            #expect(PresetLibrary.promptFile(path, workspace: w.ws, roots: w.roots) == .failure(.invalidCharacters(path)), "\(path.debugDescription)")
        }
    }

    @Test("very long paths are refused as tooLong without touching the disk, and an empty path is refused")
    func servedFilesLongAndEmpty() {
        let w = LibraryPresetWorkspace()
        let longConfig = "presets/" + String(repeating: "a", count: 5000) + ".yml"
        let longPrompt = "prompts/" + String(repeating: "ab/", count: 1700) + "x.md"
        #expect(PresetLibrary.configFile(longConfig, workspace: w.ws, roots: w.roots) == .failure(.tooLong))
        #expect(PresetLibrary.promptFile(longPrompt, workspace: w.ws, roots: w.roots) == .failure(.tooLong))
        #expect(PresetLibrary.promptFile(String(repeating: "é", count: 5000), workspace: w.ws, roots: w.roots).isFailure)

        for result in [PresetLibrary.configFile("", workspace: w.ws, roots: w.roots), PresetLibrary.promptFile("", workspace: w.ws, roots: w.roots)] {
            #expect(result.isFailure)
        }
    }
}

extension Result {
    fileprivate var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
