import Foundation
import RalphAPI

/// The app's own choices, kept in a small JSON file beside the saved servers: today the theme.
public struct AppPreferences: Codable, Equatable, Sendable {
    public var theme: AppTheme

    public init(theme: AppTheme = .cyberpunk) {
        self.theme = theme
    }

    enum CodingKeys: String, CodingKey { case theme }

    /// Unknown or missing values take their defaults (a theme a later version removed, a file from an older one).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        theme = (try? container.decodeIfPresent(AppTheme.self, forKey: .theme)) ?? .cyberpunk
    }

    /// The preferences in `file`; the defaults when it is missing or unreadable.
    public static func load(from file: String) -> AppPreferences {
        guard let data = FileManager.default.contents(atPath: file), let preferences = try? WireJSON.decode(AppPreferences.self, from: data) else {
            return AppPreferences()
        }
        return preferences
    }

    /// Writes them to `file` (atomically).
    public func save(to file: String) throws {
        let directory = (file as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try WireJSON.encodePretty(self).write(to: URL(fileURLWithPath: file), options: .atomic)
    }
}
