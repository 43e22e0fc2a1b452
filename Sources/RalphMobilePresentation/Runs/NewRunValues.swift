import RalphAPI

/// What "Start a run with this" in the library hands to the create-run wizard.
public struct RunPrefill: Sendable, Equatable, Hashable, Identifiable {
    /// A config or preset path (`ralph.yml`, `presets/feature.yml`).
    public var configPath: String?
    /// A prompt file (`prompts/docs.md`).
    public var promptPath: String?

    public init(configPath: String? = nil, promptPath: String? = nil) {
        self.configPath = configPath
        self.promptPath = promptPath
    }

    public var id: String { (configPath ?? "") + "\n" + (promptPath ?? "") }
}

/// A config the wizard offers: the workspace's `ralph.yml` or a preset.
public struct ConfigChoice: Sendable, Equatable, Identifiable {
    public enum Group: String, Sendable, Equatable {
        case workspace = "Workspace config"
        case preset = "Presets"
    }

    public var path: String
    /// `ralph.yml — the project's loop`.
    public var title: String
    public var description: String
    public var group: Group
    public var id: String { path }

    /// Merges `/api/configs` and `/api/presets` (each path once): the workspace configs first, then the presets, each
    /// in the server's order.
    public static func merge(configs: [ConfigItem], presets: [PresetItem]) -> [ConfigChoice] {
        var seen = Set<String>()
        var all: [ConfigChoice] = []
        for c in configs where seen.insert(c.path).inserted { all.append(ConfigChoice(path: c.path, description: c.description)) }
        for p in presets where seen.insert(p.path).inserted { all.append(ConfigChoice(path: p.path, description: p.description)) }
        return all.filter { $0.group == .workspace } + all.filter { $0.group == .preset }
    }

    init(path: String, description: String) {
        self.path = path
        self.description = description
        title = description.isEmpty ? path : "\(path) — \(description)"
        group = path.hasPrefix("presets/") ? .preset : .workspace
    }
}

/// A file shown before it is used (a config's YAML, a prompt's Markdown).
public struct FilePreview: Sendable, Equatable {
    public var path: String
    public var content: String
    /// `yaml` or `markdown`.
    public var contentType: String

    public init(path: String, content: String, contentType: String) {
        self.path = path
        self.content = content
        self.contentType = contentType
    }

    /// The content, or `(empty file)`.
    public var text: String { content.isEmpty ? "(empty file)" : content }
}
