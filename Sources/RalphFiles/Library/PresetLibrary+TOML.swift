import Foundation
import RalphAPI

/// TOML presets (ralph ≥ 2.9.3): the multi-file format ralph took from autoloop, a directory `presets/<name>/` holding
/// `autoloops.toml` and `topology.toml` (plus `harness.md`, `roles/…`); ralph resolves `-H <name>` to it like a YAML
/// preset (upstream `is_toml_preset_dir`: both files must be there).
///
/// They are listed and their two TOML files served as text; nothing here parses TOML. The listing needs only a name
/// and a description (ralph's own: the first prose line of the directory's `README.md`, else the first `# ` comment of
/// `autoloops.toml`), and the hats listing reads YAML `hats:` mappings, which a TOML preset does not have (its roles
/// live in `topology.toml` in autoloop's schema), so a TOML reader would serve no route.
extension PresetLibrary {
    /// The two files that make a directory a TOML preset, and the ones the configs route serves from it.
    public static let tomlPresetFiles = ["autoloops.toml", "topology.toml"]

    /// TOML preset directories under `presets/`, each listed by its `autoloops.toml`.
    static func tomlPresets(in directory: String, root: RootDirectory) -> [PresetItem] {
        ((try? root.list(directory)) ?? []).compactMap { entry -> PresetItem? in
            guard !entry.name.hasPrefix("."), (try? root.status(directory + "/" + entry.name))?.isDirectory == true else { return nil }
            let dir = directory + "/" + entry.name
            guard tomlPresetFiles.allSatisfy({ (try? root.status(dir + "/" + $0))?.isRegularFile == true }) else { return nil }
            return PresetItem(name: entry.name, path: "presets/\(entry.name)/autoloops.toml", description: tomlDescription(dir, root: root))
        }
    }

    /// `presets/<name>/autoloops.toml` or `presets/<name>/topology.toml` (relative to the workspace).
    static func isTOMLPresetFile(_ relative: String) -> Bool {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == "presets" && !parts[1].isEmpty && !parts[1].hasPrefix(".") && tomlPresetFiles.contains(String(parts[2]))
    }

    /// The first prose line of `README.md` (not a heading, not blank), else the first `# ` comment of `autoloops.toml`.
    static func tomlDescription(_ dir: String, root: RootDirectory) -> String {
        if let readme = (try? root.readFile(dir + "/README.md", limit: 64 * 1024))?.text {
            for line in readme.split(whereSeparator: \.isNewline) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if !trimmed.isEmpty, !trimmed.hasPrefix("#") { return trimmed }
            }
        }
        if let text = (try? root.readFile(dir + "/autoloops.toml", limit: 64 * 1024))?.text {
            for line in text.split(whereSeparator: \.isNewline) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("# ") { return trimmed.dropFirst(2).trimmingCharacters(in: .whitespaces) }
            }
        }
        return ""
    }
}
