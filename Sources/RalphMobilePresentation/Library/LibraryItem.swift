import RalphAPI

/// The library's sections.
public enum LibraryKind: String, CaseIterable, Sendable, Identifiable {
    case configs, prompts, presets, hats, skills

    public var id: String { rawValue }

    public var label: String {
        switch self {
        case .configs: "Configs"
        case .prompts: "Prompts"
        case .presets: "Presets"
        case .hats: "Hats"
        case .skills: "Skills"
        }
    }

    /// The filter field's prompt: `Filter prompts`.
    public var filterPrompt: String { "Filter \(label.lowercased())" }

    /// What an empty section says: where such things come from.
    public var emptyText: String {
        switch self {
        case .configs: "No configs found. Configs are the workspace’s ralph.yml and the YAML files in presets/ (presets/*.yml)."
        case .prompts: "No prompts found. Prompts are the Markdown files under the workspace’s prompts/ folder (prompts/**/*.md)."
        case .presets: "No presets found. Presets are the YAML files in the workspace’s presets/ folder (presets/*.yml)."
        case .hats: "No hats defined. Hats come from the hats: section of ralph.yml and of the presets (presets/*.yml)."
        case .skills: "No skills found. Skills are read from the directories listed under skills.dirs in ralph.yml (*.md files or <dir>/SKILL.md)."
        }
    }
}

/// One entry of a library section, ready to lay out.
public struct LibraryItem: Sendable, Equatable, Identifiable {
    /// What the entry stands for, to open it.
    public enum Reference: Sendable, Equatable {
        case config(path: String)
        case prompt(path: String)
        case preset(path: String)
        case hat(HatItem)
        case skill(name: String)
    }

    public var kind: LibraryKind
    public var reference: Reference
    public var title: String
    /// The path (configs, prompts, presets, skill files) or the hat's id.
    public var subtitle: String?
    /// The description, or a prompt's first line.
    public var detail: String?
    /// `workspace` / `preset` for configs; the source for skills; `auto` for auto-injected skills.
    public var badges: [String]
    /// A hat's emoji.
    public var emoji: String?
    /// The hat whose colour marks the entry (`ThemeColor.hat(name)`).
    public var hat: String?
    /// `Triggers: build.task` / `Publishes: build.done` / `Tags: swift` / `Hats: builder`.
    public var chips: [LibraryChip]
    public var accessibilityLabel: String
    /// Lowercased text the filter searches.
    var searchText: String

    public var id: String {
        switch reference {
        case .config(let path), .prompt(let path), .preset(let path): "\(kind.rawValue):\(path)"
        case .hat(let hat): "hats:\(hat.id)"
        case .skill(let name): "skills:\(name)"
        }
    }

    init(
        kind: LibraryKind, reference: Reference, title: String, subtitle: String?, detail: String?, badges: [String] = [], emoji: String? = nil,
        hat: String? = nil, chips: [LibraryChip] = [], extraSearch: [String] = []
    ) {
        self.kind = kind
        self.reference = reference
        self.title = title
        self.subtitle = subtitle
        self.detail = detail.flatMap { $0.isEmpty ? nil : $0 }
        self.badges = badges
        self.emoji = emoji.flatMap { $0.isEmpty ? nil : $0 }
        self.hat = hat
        self.chips = chips.filter { !$0.values.isEmpty }
        var label = [title]
        if let subtitle, subtitle != title { label.append(subtitle) }
        label += badges
        if let detail = self.detail { label.append(detail) }
        for chip in self.chips { label.append("\(chip.label): \(chip.values.joined(separator: ", "))") }
        accessibilityLabel = label.joined(separator: ", ")
        searchText = ([title, subtitle ?? "", detail ?? ""] + badges + chips.flatMap(\.values) + extraSearch).joined(separator: " ").lowercased()
    }

    public static func config(_ c: ConfigItem) -> LibraryItem {
        let preset = c.path.hasPrefix("presets/")
        return LibraryItem(
            kind: .configs, reference: .config(path: c.path), title: c.name.isEmpty ? c.path : c.name, subtitle: c.path,
            detail: c.description.isEmpty ? "No description (add a # comment as the first line)." : c.description,
            badges: [preset ? "preset" : "workspace"])
    }

    public static func prompt(_ p: PromptItem) -> LibraryItem {
        LibraryItem(
            kind: .prompts, reference: .prompt(path: p.path), title: p.name.isEmpty ? p.path : p.name, subtitle: p.path,
            detail: p.preview.isEmpty ? "(empty)" : p.preview)
    }

    public static func preset(_ p: PresetItem) -> LibraryItem {
        LibraryItem(kind: .presets, reference: .preset(path: p.path), title: p.name.isEmpty ? p.path : p.name, subtitle: p.path, detail: p.description)
    }

    public static func hat(_ h: HatItem) -> LibraryItem {
        LibraryItem(
            kind: .hats, reference: .hat(h), title: h.name.isEmpty ? h.id : h.name, subtitle: h.id != h.name ? h.id : nil, detail: h.description,
            emoji: h.emoji, hat: h.name.isEmpty ? h.id : h.name, chips: [LibraryChip("Triggers", h.triggers), LibraryChip("Publishes", h.publishes)], extraSearch: h.sources)
    }

    public static func skill(_ s: SkillItem) -> LibraryItem {
        LibraryItem(
            kind: .skills, reference: .skill(name: s.name), title: s.name, subtitle: s.path, detail: s.description,
            badges: [s.source.isEmpty ? "file" : s.source] + (s.autoInject ? ["auto"] : []), chips: [LibraryChip("Tags", s.tags), LibraryChip("Hats", s.hats)])
    }
}

/// A labelled row of small chips (`Triggers: build.task, review.rejected`).
public struct LibraryChip: Sendable, Equatable, Identifiable {
    public var label: String
    public var values: [String]
    public var id: String { label }
    /// `Triggers: build.task, review.rejected`.
    public var text: String { "\(label): \(values.joined(separator: ", "))" }

    public init(_ label: String, _ values: [String]) {
        self.label = label
        self.values = values
    }
}
