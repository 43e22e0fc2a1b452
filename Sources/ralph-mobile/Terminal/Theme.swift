import Foundation
import RalphAPI

/// The Ralph Mobile theme in the terminal: 24-bit ANSI colors, or none (`--no-color`, `NO_COLOR`, or not a TTY).
struct Theme: Sendable {
    var enabled: Bool

    static let cyan = "#00d9ff"
    static let pink = "#ff006e"
    static let purple = "#c71585"
    static let green = "#39ff14"
    static let gold = "#ffd700"
    static let white = "#ffffff"
    static let gray = "#a0a0a0"
    static let background = "#0a0e27"
    static let border = "#1a1a2e"

    func paint(_ text: String, _ hex: String, bold: Bool = false) -> String {
        guard enabled, let (r, g, b) = Self.rgb(hex) else { return text }
        return "\u{1B}[\(bold ? "1;" : "")38;2;\(r);\(g);\(b)m\(text)\u{1B}[0m"
    }

    func dim(_ text: String) -> String { paint(text, Self.gray) }
    func accent(_ text: String) -> String { paint(text, Self.cyan, bold: true) }
    func bad(_ text: String) -> String { paint(text, Self.pink, bold: true) }
    func good(_ text: String) -> String { paint(text, Self.green) }
    func hat(_ name: String?) -> String {
        guard let name else { return dim("—") }
        return paint(name, HatPalette.color(for: name))
    }

    func mode(_ mode: SessionMode) -> String {
        switch mode {
        case .live: paint("live", Self.green, bold: true)
        case .paused: paint("paused", Self.gold, bold: true)
        case .suspended: paint("suspended", Self.gold, bold: true)
        case .unreachable: bad("unreachable")
        default: dim(mode.rawValue)
        }
    }

    static func rgb(_ hex: String) -> (Int, Int, Int)? {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        guard digits.count == 6, let value = Int(digits, radix: 16) else { return nil }
        return (value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF)
    }

    /// Colors unless disabled by flag, by `NO_COLOR`, or because stdout is not a terminal.
    static func choose(noColor: Bool) -> Theme {
        let environment = ProcessInfo.processInfo.environment
        let forced = environment["RALPH_MOBILE_COLOR"] == "always"
        return Theme(enabled: !noColor && environment["NO_COLOR"] == nil && (forced || isatty(STDOUT_FILENO) == 1))
    }
}

/// Text helpers for tables and one-line summaries.
enum Text {
    /// Visible width ignoring ANSI escapes.
    static func width(_ s: String) -> Int {
        var count = 0
        var inEscape = false
        for scalar in s.unicodeScalars {
            if inEscape {
                if scalar == "m" { inEscape = false }
                continue
            }
            if scalar == "\u{1B}" {
                inEscape = true
                continue
            }
            if scalar.properties.generalCategory == .nonspacingMark || scalar.value == 0xFE0F || scalar.value == 0x200D { continue }
            count += scalar.properties.isEmojiPresentation ? 2 : 1
        }
        return count
    }

    /// Cuts a line that may hold ANSI color codes to `width` visible columns (with `…`), so it never wraps.
    static func fit(_ s: String, _ width: Int) -> String {
        guard self.width(s) > width else { return s }
        var result = ""
        var used = 0
        var inEscape = false
        for character in s {
            if inEscape {
                result.append(character)
                if character == "m" { inEscape = false }
                continue
            }
            if character == "\u{1B}" {
                inEscape = true
                result.append(character)
                continue
            }
            let w = self.width(String(character))
            if used + w > width - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…\u{1B}[0m"
    }

    static func pad(_ s: String, _ width: Int) -> String {
        let w = self.width(s)
        return w >= width ? s : s + String(repeating: " ", count: width - w)
    }

    /// Cuts plain text to `width` visible characters, with `…`.
    static func cut(_ s: String, _ width: Int) -> String {
        let flat = s.replacingOccurrences(of: "\n", with: " ⏎ ")
        guard flat.count > width else { return flat }
        return String(flat.prefix(max(0, width - 1))) + "…"
    }

    /// `HH:MM:SS` local time of an RFC 3339 timestamp.
    static func clock(_ ts: String?) -> String {
        guard let ts, let date = Timestamp.parse(ts), let t = local(date) else { return "--:--:--" }
        return String(format: "%02d:%02d:%02d", t.tm_hour, t.tm_min, t.tm_sec)
    }

    /// `YYYY-MM-DD HH:MM` local time.
    static func dateTime(_ ts: String?) -> String {
        guard let ts, let date = Timestamp.parse(ts), let t = local(date) else { return "—" }
        return String(format: "%04d-%02d-%02d %02d:%02d", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min)
    }

    /// The local calendar time of a date (cheap: the dashboard formats every visible event on each redraw).
    static func local(_ date: Date) -> tm? {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var result = tm()
        return localtime_r(&seconds, &result) == nil ? nil : result
    }

    /// `1h 2m`, `3m 4s`, `5s`.
    static func duration(_ seconds: Double) -> String {
        let total = max(0, Int(seconds))
        if total >= 3600 { return "\(total / 3600)h \(total / 60 % 60)m" }
        if total >= 60 { return "\(total / 60)m \(total % 60)s" }
        return "\(total)s"
    }

    /// A sparkline of the values.
    static func sparkline(_ values: [Int]) -> String {
        guard let top = values.max(), top > 0 else { return "" }
        let bars = Array("▁▂▃▄▅▆▇█")
        return String(values.map { bars[min(bars.count - 1, $0 * (bars.count - 1) / top)] })
    }
}
