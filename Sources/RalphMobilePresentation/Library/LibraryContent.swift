import Foundation
import RalphAPI

/// An opened library entry: its text to read, copy and share, and — for configs, presets and prompts — the hand-over
/// to the create-run wizard.
public struct LibraryContent: Sendable, Equatable {
    public var title: String
    /// The file, relative to the workspace (or the hat's id).
    public var subtitle: String?
    /// `yaml` or `markdown`.
    public var contentType: String
    /// Facts above the text (a skill's tags, a hat's topics).
    public var facts: [SectionStat]
    /// The text shown, copied and shared.
    public var text: String
    /// What "Share" hands to the share sheet.
    public var shareFile: ExportFile
    /// For "Start a run with this": set for configs, presets and prompts (the view offers it to admins only).
    public var prefill: RunPrefill?
    /// A hat's config files, each of which can be opened.
    public var sources: [String]

    /// The text that "Copy" puts on the clipboard.
    public var copyText: String { text }

    /// The text shown, or `(empty file)`.
    public var displayText: String { text.isEmpty ? "(empty file)" : text }

    /// A config, preset or prompt file.
    public static func file(_ file: FileContentResponse, kind: LibraryKind) -> LibraryContent {
        let name = file.path.split(separator: "/").last.map(String.init) ?? file.path
        let markdown = file.contentType == "markdown" || kind == .prompts
        let prefill = kind == .prompts ? RunPrefill(promptPath: file.path) : RunPrefill(configPath: file.path)
        return LibraryContent(
            title: name, subtitle: file.path, contentType: file.contentType.isEmpty ? (markdown ? "markdown" : "yaml") : file.contentType, facts: [],
            text: file.content,
            shareFile: ExportFile(fileName: name, mimeType: markdown ? "text/markdown" : "application/yaml", contents: Data(file.content.utf8)),
            prefill: prefill, sources: [])
    }

    /// A hat: its topics, where it is defined, and a snippet to paste into a config.
    public static func hat(_ hat: HatItem) -> LibraryContent {
        let snippet = Self.snippet(hat)
        let list = { (topics: [String]) in topics.isEmpty ? "none" : topics.joined(separator: ", ") }
        return LibraryContent(
            title: (hat.emoji.isEmpty ? "" : hat.emoji + " ") + (hat.name.isEmpty ? hat.id : hat.name), subtitle: hat.id, contentType: "yaml",
            facts: [SectionStat("Triggers", list(hat.triggers)), SectionStat("Publishes", list(hat.publishes))]
                + (hat.description.isEmpty ? [] : [SectionStat("Description", hat.description)]),
            text: snippet, shareFile: ExportFile(fileName: "\(hat.id)-hat.yml", mimeType: "application/yaml", contents: Data(snippet.utf8)),
            prefill: nil, sources: hat.sources)
    }

    /// A skill: its metadata and its content.
    public static func skill(_ skill: SkillItem, content: String) -> LibraryContent {
        var facts = [
            SectionStat("Description", skill.description.isEmpty ? Formatting.missing : skill.description),
            SectionStat("Source", skill.source == "built-in" ? "built into ralph" : "file"),
        ]
        if let path = skill.path { facts.append(SectionStat("File", path)) }
        facts.append(SectionStat("Tags", skill.tags.isEmpty ? "none" : skill.tags.joined(separator: ", ")))
        facts.append(SectionStat("Hats", skill.hats.isEmpty ? "all hats" : skill.hats.joined(separator: ", ")))
        if !skill.backends.isEmpty { facts.append(SectionStat("Backends", skill.backends.joined(separator: ", "))) }
        facts.append(SectionStat("Auto-inject", skill.autoInject ? "yes" : "no"))
        return LibraryContent(
            title: skill.name, subtitle: skill.path, contentType: "markdown", facts: facts, text: content,
            shareFile: ExportFile(fileName: "\(skill.name).md", mimeType: "text/markdown", contents: Data(content.utf8)), prefill: nil,
            sources: [])
    }

    /// The hat as `ralph.yml` declares it, for copying into a config.
    public static func snippet(_ hat: HatItem) -> String {
        func quote(_ text: String) -> String {
            let plain = text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || " .,-/()_".unicodeScalars.contains($0) }
            if plain, let first = text.first, first != " ", first != "-" { return text }
            return JSONWriter.string(.string(text))
        }
        func list(_ items: [String]) -> String { "[" + items.map(quote).joined(separator: ", ") + "]" }
        return [
            "hats:", "  \(hat.id):", "    name: \(quote(hat.name.isEmpty ? hat.id : hat.name))", "    description: \(quote(hat.description))",
            "    triggers: \(list(hat.triggers))", "    publishes: \(list(hat.publishes))", "",
        ].joined(separator: "\n")
    }
}
