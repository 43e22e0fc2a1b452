/// `GET /api/configs` item.
public struct ConfigItem: Codable, Hashable, Sendable {
    /// Relative to the workspace (`presets/feature.yml`, `ralph.yml`).
    public var path: String
    public var name: String
    /// The file's first line when it is a `#` comment.
    public var description: String

    public init(path: String, name: String, description: String) {
        self.path = path
        self.name = name
        self.description = description
    }
}

public struct ConfigsResponse: Codable, Hashable, Sendable {
    public var configs: [ConfigItem]
    public init(configs: [ConfigItem]) { self.configs = configs }
}

/// `GET /api/configs/{path}` and `GET /api/prompts/{path}`.
public struct FileContentResponse: Codable, Hashable, Sendable {
    public var path: String
    public var content: String
    /// `yaml` or `markdown`.
    public var contentType: String

    public init(path: String, content: String, contentType: String) {
        self.path = path
        self.content = content
        self.contentType = contentType
    }

    enum CodingKeys: String, CodingKey {
        case path, content
        case contentType = "content_type"
    }
}

/// `GET /api/prompts` item.
public struct PromptItem: Codable, Hashable, Sendable {
    public var path: String
    public var name: String
    /// First non-blank line, cut to 50 bytes (`…` marks a cut).
    public var preview: String

    public init(path: String, name: String, preview: String) {
        self.path = path
        self.name = name
        self.preview = preview
    }
}

public struct PromptsResponse: Codable, Hashable, Sendable {
    public var prompts: [PromptItem]
    public init(prompts: [PromptItem]) { self.prompts = prompts }
}

/// `GET /api/presets` item.
public struct PresetItem: Codable, Hashable, Sendable {
    public var name: String
    public var path: String
    public var description: String

    public init(name: String, path: String, description: String) {
        self.name = name
        self.path = path
        self.description = description
    }
}

public struct PresetsResponse: Codable, Hashable, Sendable {
    public var presets: [PresetItem]
    public init(presets: [PresetItem]) { self.presets = presets }
}

/// `GET /api/hats` item: a hat defined by a preset or the workspace config.
public struct HatItem: Codable, Hashable, Sendable {
    /// Display name (the hat's `name`, else its id).
    public var name: String
    /// The key under `hats:` (`builder`).
    public var id: String
    public var description: String
    public var emoji: String
    /// Hex color from the project's hat palette (``HatPalette``).
    public var color: String
    public var triggers: [String]
    public var publishes: [String]
    /// Files that define it, relative to the workspace.
    public var sources: [String]

    public init(name: String, id: String, description: String, emoji: String, color: String, triggers: [String], publishes: [String], sources: [String]) {
        self.name = name
        self.id = id
        self.description = description
        self.emoji = emoji
        self.color = color
        self.triggers = triggers
        self.publishes = publishes
        self.sources = sources
    }
}

public struct HatsResponse: Codable, Hashable, Sendable {
    public var hats: [HatItem]
    public init(hats: [HatItem]) { self.hats = hats }
}

/// The hat colors of the Ralph Mobile theme, shared by every client.
public enum HatPalette {
    /// Colors of the well-known hats.
    public static let known: [String: String] = [
        "planner": "#00d9ff", "fixer": "#ff006e", "builder": "#c71585", "reviewer": "#39ff14", "architect": "#ffd700",
    ]
    /// Colors for other hats, picked by a stable hash of the hat id.
    public static let others = ["#ff9f1c", "#2ec4b6", "#9b5de5", "#f15bb5", "#00bbf9", "#fee440", "#00f5d4", "#ff5d8f"]

    /// The color of a hat (by id; case-insensitive; an emoji prefix in a display name is ignored).
    public static func color(for hat: String) -> String {
        let key = hat.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic || $0 == "-" || $0 == "_" }.map(String.init).joined()
        if let color = known[key] { return color }
        // The well-known name that occurs first in the id (`builder-reviewer` is a builder); never the dictionary's
        // order, which changes from one process to the next.
        let matches = known.keys.compactMap { name in key.range(of: name).map { (name, $0.lowerBound) } }
        if let first = matches.min(by: { ($0.1, $0.0) < ($1.1, $1.0) }) { return known[first.0]! }
        // FNV-1a: stable across runs and platforms, unlike Hasher.
        var hash: UInt32 = 2_166_136_261
        for byte in key.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return others[Int(hash % UInt32(others.count))]
    }

    /// The emoji the original server gave a hat id.
    public static func emoji(for id: String) -> String {
        switch id.lowercased() {
        case "builder": "🏗️"
        case "reviewer": "👀"
        case "investigator": "🔍"
        case "tester": "🧪"
        case "fixer": "🔧"
        case "verifier": "✅"
        case "planner": "📋"
        case "architect": "🏛️"
        case "deployer": "🚀"
        case "analyst": "📊"
        case "researcher": "📚"
        case "writer": "✍️"
        case "designer": "🎨"
        case "security": "🔒"
        case "coordinator": "🎯"
        default: "🎩"
        }
    }
}

/// `POST /api/config/export`.
public struct ConfigExportResponse: Codable, Hashable, Sendable {
    public var content: String
    /// `ralph.yml` or `ralph.yaml`.
    public var filename: String

    public init(content: String, filename: String) {
        self.content = content
        self.filename = filename
    }
}

/// `POST /api/config/import`.
public struct ConfigImportRequest: Codable, Hashable, Sendable {
    public var content: String
    public init(content: String) { self.content = content }
}

/// `200` answer of `POST /api/config/import`.
public struct ConfigImportResponse: Codable, Hashable, Sendable {
    public var status: String
    /// The file written, relative to the workspace.
    public var path: String
    /// Where the previous file was kept, when there was one.
    public var backup: String?

    public init(status: String, path: String, backup: String?) {
        self.status = status
        self.path = path
        self.backup = backup
    }
}

/// `GET/PUT /api/memories`.
public struct MemoriesContent: Codable, Hashable, Sendable {
    public var content: String
    public var lastModified: String?
    /// The entries ralph would read from ``content``.
    public var entries: [MemoryEntry]

    public init(content: String, lastModified: String?, entries: [MemoryEntry]) {
        self.content = content
        self.lastModified = lastModified
        self.entries = entries
    }

    enum CodingKeys: String, CodingKey {
        case content, entries
        case lastModified = "last_modified"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(content, forKey: .content)
        try c.encode(lastModified, forKey: .lastModified)
        try c.encode(entries, forKey: .entries)
    }
}

/// `PUT /api/memories` body.
public struct MemoriesUpdate: Codable, Hashable, Sendable {
    public var content: String
    public init(content: String) { self.content = content }
}

/// `POST /api/memories/export`.
public struct MemoriesExport: Codable, Hashable, Sendable {
    public var content: String
    public var exportedAt: String
    /// `memories-YYYYMMDD-HHMMSS.md`.
    public var filename: String

    public init(content: String, exportedAt: String, filename: String) {
        self.content = content
        self.exportedAt = exportedAt
        self.filename = filename
    }

    enum CodingKeys: String, CodingKey {
        case content, filename
        case exportedAt = "exported_at"
    }
}
