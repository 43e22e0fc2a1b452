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
