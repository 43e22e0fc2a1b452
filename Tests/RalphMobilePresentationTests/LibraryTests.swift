import Foundation
import RalphAPI
import RalphMobileKit
import RalphMobilePresentation
import Testing
import TestSupport

@Suite("Library entries and content")
struct LibraryValuesTests {
    @Test("entries: configs say workspace or preset; prompts show their first line; hats their topics; skills their source")
    func entries() {
        let configs = SessionsFixtures.configs.map(LibraryItem.config)
        #expect(configs.map(\.badges) == [["workspace"], ["preset"], ["preset"]])
        #expect(configs[2].detail == "No description (add a # comment as the first line).")
        #expect(configs[0].id == "configs:ralph.yml")
        let prompt = LibraryItem.prompt(SessionsFixtures.prompts[0])
        #expect(prompt.subtitle == "prompts/json-flag.md" && prompt.detail?.hasPrefix("# Add a --json flag") == true)
        let hat = LibraryItem.hat(SessionsFixtures.hats[1])
        #expect(hat.chips.map(\.text) == ["Triggers: build.task", "Publishes: build.done, build.blocked"])
        #expect(hat.hat == "builder" && hat.emoji == "🏗️" && hat.subtitle == nil)
        let skill = LibraryItem.skill(SessionsFixtures.skills[0])
        #expect(skill.badges == ["file", "auto"] && skill.chips.map(\.label) == ["Tags", "Hats"])
        #expect(skill.accessibilityLabel.contains("Tags: swift, tests"))
    }

    @Test("content: a file is copied and shared as it is, named after it; configs and prompts hand over to the wizard")
    func fileContent() throws {
        let config = LibraryContent.file(SessionsFixtures.configFile, kind: .configs)
        #expect(config.title == "feature.yml" && config.subtitle == "presets/feature.yml" && config.contentType == "yaml")
        #expect(config.copyText == SessionsFixtures.configFile.content)
        #expect(config.shareFile.fileName == "feature.yml" && config.shareFile.mimeType == "application/yaml")
        #expect(config.shareFile.text == SessionsFixtures.configFile.content)
        #expect(config.prefill == RunPrefill(configPath: "presets/feature.yml"))
        let prompt = LibraryContent.file(SessionsFixtures.promptFile, kind: .prompts)
        #expect(prompt.prefill == RunPrefill(promptPath: "prompts/json-flag.md") && prompt.shareFile.mimeType == "text/markdown")
        let empty = LibraryContent.file(FileContentResponse(path: "prompts/e.md", content: "", contentType: "markdown"), kind: .prompts)
        #expect(empty.displayText == "(empty file)" && empty.copyText == "")

        let tmp = TemporaryDirectory("rm-share")
        let url = try config.shareFile.write(into: URL(fileURLWithPath: tmp.path + "/out"))
        #expect(url.lastPathComponent == "feature.yml")
        #expect(try String(contentsOf: url, encoding: .utf8) == SessionsFixtures.configFile.content)
    }

    @Test("a hat's content is a snippet ralph.yml accepts, quoting what YAML would misread; no run is started from a hat")
    func hatSnippet() {
        let content = LibraryContent.hat(SessionsFixtures.hats[1])
        #expect(content.text == "hats:\n  builder:\n    name: builder\n    description: Writes the code and runs the checks.\n    triggers: [build.task]\n    publishes: [build.done, build.blocked]\n")
        #expect(content.facts.map(\.label) == ["Triggers", "Publishes", "Description"])
        #expect(content.sources == ["ralph.yml", "presets/feature.yml"])
        #expect(content.prefill == nil)
        #expect(content.shareFile.fileName == "builder-hat.yml")
        let odd = HatItem(name: "- odd: name", id: "odd", description: "", emoji: "", color: "", triggers: ["a:b"], publishes: [], sources: [])
        #expect(LibraryContent.snippet(odd) == "hats:\n  odd:\n    name: \"- odd: name\"\n    description: \"\"\n    triggers: [\"a:b\"]\n    publishes: []\n")
    }

    @Test("a skill's content lists its facts")
    func skillContent() {
        let content = LibraryContent.skill(SessionsFixtures.skills[0], content: "<swift-testing-skill>\nUse @Test\n</swift-testing-skill>")
        #expect(content.facts.map(\.value) == ["Write tests with Swift Testing", "file", ".ralph/skills/swift-testing/SKILL.md", "swift, tests", "builder", "yes"])
        #expect(content.shareFile.fileName == "swift-testing.md" && content.prefill == nil)
    }
}

@Suite("Library screen against the real server")
@MainActor
struct LibraryScreenTests {
    func workspace(_ h: SessionsHarness) throws {
        try h.write(
            "ralph.yml",
            "# The project's loop\nskills:\n  dirs: [skills]\nhats:\n  builder:\n    description: Builds\n    triggers: [build.task]\n    publishes: [build.done]\n")
        try h.write("presets/feature.yml", "# A feature with tests\nhats:\n  reviewer:\n    triggers: [build.done]\n    publishes: [review.approved]\n")
        try h.write("prompts/task.md", "# Add a flag\n\nWith tests.\n")
        try h.write("prompts/docs/readme.md", "Write the README\n")
        try h.write("skills/swift-testing/SKILL.md", "---\nname: swift-testing\ndescription: Write tests with Swift Testing\ntags: [swift]\n---\nUse @Test.\n")
    }

    @Test("each section lists its entries; the filter narrows them by any field; switching sections clears it")
    func sectionsAndFilter() async throws {
        let h = try await SessionsHarness.start()
        try workspace(h)
        let library = LibraryModel(client: h.viewer)
        await library.select(.configs)
        #expect(library.items.map(\.subtitle).compactMap { $0 }.sorted() == ["presets/feature.yml", "ralph.yml"])
        #expect(library.countText == "2 configs")
        library.filter = "tests feature"
        #expect(library.shownItems.map(\.subtitle) == ["presets/feature.yml"])
        #expect(library.countText == "1 of 2 configs shown")
        library.filter = "nothing-like-this"
        #expect(library.emptyText == "No configs match “nothing-like-this”.")
        await library.select(.prompts)
        #expect(library.filter == "")
        #expect(library.items.count == 2)
        await library.select(.presets)
        #expect(library.items.map(\.subtitle) == ["presets/feature.yml"])
        await library.select(.hats)
        #expect(library.items.map(\.title) == ["builder", "reviewer"])
        library.filter = "review.approved"
        #expect(library.shownItems.map(\.title) == ["reviewer"], "found by a topic it publishes")
        await library.select(.skills)
        #expect(library.items.map(\.title).contains("swift-testing"))
        #expect(library.items.contains { $0.badges == ["built-in"] }, "ralph's built-ins too")
        await h.stop()
    }

    @Test("an empty section says where such entries come from")
    func emptySection() async throws {
        let h = try await SessionsHarness.start()
        let library = LibraryModel(client: h.viewer)
        await library.select(.hats)
        #expect(library.items.isEmpty)
        #expect(library.emptyText == LibraryKind.hats.emptyText)
        #expect(library.countText == "0 hats")
        await h.stop()
    }

    @Test("opening entries: a config, a prompt, a preset, a hat and its source, a skill; the hand-over only for admins")
    func opening() async throws {
        let h = try await SessionsHarness.start()
        try workspace(h)
        let library = LibraryModel(client: h.operatorClient)
        await library.select(.configs)
        let ralph = try #require(library.items.first { $0.subtitle == "ralph.yml" })
        await library.open(ralph)
        #expect(library.content?.text.hasPrefix("# The project's loop") == true)
        #expect(library.content?.prefill == RunPrefill(configPath: "ralph.yml"))
        #expect(library.startRunPrefill(capabilities: Capabilities(role: .operator)) == nil)
        #expect(library.startRunPrefill(capabilities: Capabilities(role: .admin)) == RunPrefill(configPath: "ralph.yml"))

        await library.select(.prompts)
        let readme = try #require(library.items.first { $0.subtitle == "prompts/docs/readme.md" })
        await library.open(readme)
        #expect(library.content?.text == "Write the README\n" && library.content?.contentType == "markdown")
        #expect(library.content?.prefill == RunPrefill(promptPath: "prompts/docs/readme.md"))

        await library.select(.presets)
        await library.open(try #require(library.items.first))
        #expect(library.content?.prefill == RunPrefill(configPath: "presets/feature.yml"))

        await library.select(.hats)
        await library.open(try #require(library.items.first { $0.title == "reviewer" }))
        #expect(library.content?.sources == ["presets/feature.yml"])
        #expect(library.content?.text.contains("  reviewer:\n") == true)
        await library.openSource("presets/feature.yml")
        #expect(library.content?.text.hasPrefix("# A feature with tests") == true)

        await library.select(.skills)
        await library.open(try #require(library.items.first { $0.title == "swift-testing" }))
        #expect(library.content?.text.contains("Use @Test.") == true)
        #expect(library.content?.facts.first?.value == "Write tests with Swift Testing")
        library.close()
        #expect(library.content == nil && library.openedItem == nil)
        await h.stop()
    }

    @Test("an entry deleted since the list was read: the error says so, and trying again after it is back works")
    func deletedEntry() async throws {
        let h = try await SessionsHarness.start()
        try workspace(h)
        let library = LibraryModel(client: h.viewer)
        await library.select(.prompts)
        let task = try #require(library.items.first { $0.subtitle == "prompts/task.md" })
        try FileManager.default.removeItem(atPath: h.root + "/prompts/task.md")
        await library.open(task)
        #expect(library.content == nil)
        #expect(library.contentError?.contains("prompt not found") == true)
        #expect(library.contentError?.hasSuffix("it may have been renamed or deleted since the list was loaded.") == true)
        try h.write("prompts/task.md", "back\n")
        await library.open(try #require(library.openedItem))
        #expect(library.content?.text == "back\n" && library.contentError == nil)
        await h.stop()
    }

    @Test("a refused list is an error with the reason")
    func refusedList() async throws {
        let h = try await SessionsHarness.start()
        let wrong = try RalphClient(baseURL: h.server.base, apiKey: "wrong-key-for-the-library-000000")
        let library = LibraryModel(client: wrong)
        await library.select(.configs)
        #expect(library.loadError?.hasPrefix("Could not load configs: the server refused the API key") == true)
        #expect(library.emptyText == nil && library.countText == "")
        await h.stop()
    }
}
