import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

@Suite("Library: hats")
struct LibraryHatTests {
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
        let w = LibraryPresetWorkspace(["presets/a.yml": Self.presetA, "presets/b.yml": Self.presetB, "ralph.yml": Self.ralphYml])
        let hats = w.hats
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
        let w = LibraryPresetWorkspace([
            "presets/aaa-broken.yml": "# Broken\nhats:\n  planner: [unclosed\n    name: x\n",
            "presets/list.yml": "- not\n- a mapping\n",
            "presets/good.yml": "hats:\n  tester:\n    name: Tester\n    description: Tests\n",
            "ralph.yml": "hats:\n  writer:\n    description: Writes\n",
        ])
        let hats = w.hats
        #expect(hats.map(\.name) == ["Tester", "writer"])
        #expect(hats.map(\.emoji) == ["🧪", "✍️"])
        #expect(hats.map(\.sources) == [["presets/good.yml"], ["ralph.yml"]])
        // The broken file is still a preset: listing does not parse it.
        #expect(w.presets.map(\.name) == ["aaa-broken", "good", "list"])
    }

    @Test("hat colors: the five well-known hats have the theme colors, any other id a stable palette color")
    func hatPaletteColors() {
        let known = [
            "planner": "#00d9ff", "builder": "#c71585", "reviewer": "#39ff14", "fixer": "#ff006e", "architect": "#ffd700",
            "Builder": "#c71585", "📋 Planner": "#00d9ff",
        ]
        for (id, color) in known {
            #expect(HatPalette.color(for: id) == color, "\(id)")
        }

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
}
