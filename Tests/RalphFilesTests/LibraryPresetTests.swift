import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

@Suite("Library: presets and configs")
struct LibraryPresetTests {
    @Test("presets lists presets/*.yml and *.yaml non-recursively, sorted by name, skipping hidden files, directories and other extensions")
    func presetsListing() {
        let w = LibraryPresetWorkspace([
            "presets/zeta.yml": "# Zeta\n",
            "presets/feature.yml": "# Feature Development Preset\nevent_loop:\n  max_iterations: 10\n",
            "presets/bugfix.yaml": "hats: {}\n",
            "presets/minimal/nested.yml": "# Nested\n",
            "presets/.hidden.yml": "# Hidden\n",
            "presets/notes.txt": "# Notes\n",
            "presets/readme.md": "# Readme\n",
        ])
        w.root.dir("ws/presets/dir.yml")

        let presets = w.presets
        #expect(presets.map(\.name) == ["bugfix", "feature", "zeta"])
        #expect(presets.map(\.path) == ["presets/bugfix.yaml", "presets/feature.yml", "presets/zeta.yml"])
        #expect(presets[1] == PresetItem(name: "feature", path: "presets/feature.yml", description: "Feature Development Preset"))
    }

    @Test("a preset's description is its first non-blank line when that is a # comment, with every leading # stripped")
    func presetDescriptions() {
        let w = LibraryPresetWorkspace([
            "presets/a.yml": "# Plain comment\nhats: {}\n",
            "presets/b.yml": "\n\n   ### Several hashes and spaces   \nhats: {}\n",
            "presets/c.yml": "hats: {}\n# a comment on the second line\n",
            "presets/d.yml": "",
            "presets/e.yml": "#\nhats: {}\n",
            "presets/f.yml": "#No space after the hash\r\nhats: {}\r\n",
        ])
        let descriptions = Dictionary(uniqueKeysWithValues: w.presets.map { ($0.name, $0.description) })
        #expect(descriptions == [
            "a": "Plain comment", "b": "Several hashes and spaces", "c": "", "d": "", "e": "", "f": "No space after the hash",
        ])
    }

    @Test("a workspace without a presets directory has no presets")
    func noPresetsDirectory() {
        let w = LibraryPresetWorkspace()
        #expect(w.presets.isEmpty)
        #expect(w.configs.isEmpty)
        #expect(w.hats.isEmpty)
        #expect(w.prompts.isEmpty)
    }

    @Test("configs are the presets plus the workspace's ralph.yml, sorted by name")
    func configsIncludeRalphYml() {
        let w = LibraryPresetWorkspace([
            "presets/alpha.yml": "# Alpha preset\n", "presets/zeta.yaml": "",
            "ralph.yml": "# The workspace config\ncli:\n  backend: claude\n",
        ])
        #expect(w.configs == [
            ConfigItem(path: "presets/alpha.yml", name: "alpha", description: "Alpha preset"),
            ConfigItem(path: "ralph.yml", name: "ralph", description: "The workspace config"),
            ConfigItem(path: "presets/zeta.yaml", name: "zeta", description: ""),
        ])
    }

    @Test("ralph.yaml is the config when there is no ralph.yml, and ralph.yml wins when both exist")
    func ralphYamlFallback() {
        let w = LibraryPresetWorkspace(["ralph.yaml": "# yaml spelling\n"])
        #expect(w.configs == [ConfigItem(path: "ralph.yaml", name: "ralph", description: "yaml spelling")])

        w.file("ralph.yml", "# yml spelling\n")
        #expect(w.configs == [ConfigItem(path: "ralph.yml", name: "ralph", description: "yml spelling")])
    }

    @Test(
        "a preset that links outside the roots exposes nothing of the outside file"
    )
    func presetSymlinkOutside() {
        let w = LibraryPresetWorkspace(["presets/fine.yml": "# Fine\n"])
        let secret = w.outside.file("secret.yml", "# SECRET description\nhats:\n  leaked:\n    name: Leaked\n    description: SECRET hat\n")
        w.link("presets/out.yml", to: secret)
        #expect(!w.presets.contains { $0.description.contains("SECRET") })
        #expect(!w.configs.contains { $0.description.contains("SECRET") })
        #expect(w.hats.isEmpty)
        #expect(w.isOutside(.config, "presets/out.yml"))
    }
}
