import RalphAPI

/// The themes the app offers (Settings → Theme), the web dashboard's dark ones. The web's light theme is not offered:
/// the app is dark by design (`preferredColorScheme(.dark)`).
public enum AppTheme: String, CaseIterable, Codable, Sendable, Identifiable {
    /// Neon on deep navy: the original app's look (the default).
    case cyberpunk
    /// Black background, brighter secondary text and borders.
    case contrast

    public var id: String { rawValue }

    public var title: String {
        switch self {
        case .cyberpunk: "Cyberpunk"
        case .contrast: "High contrast"
        }
    }

    public var hint: String {
        switch self {
        case .cyberpunk: "Neon on deep navy (default)"
        case .contrast: "Black background, brighter text and borders"
        }
    }

    public var palette: ThemePalette {
        switch self {
        case .cyberpunk: .cyberpunk
        case .contrast: .contrast
        }
    }
}

/// The RGB values of one theme.
public struct ThemePalette: Sendable, Equatable {
    public var background: RGBColor
    public var surface: RGBColor
    public var surfaceRaised: RGBColor
    public var border: RGBColor
    public var text: RGBColor
    public var secondaryText: RGBColor
    public var accent: RGBColor
    public var onAccent: RGBColor
    public var success: RGBColor
    public var warning: RGBColor
    public var danger: RGBColor
    public var info: RGBColor
    /// Hat colours that differ from ``HatPalette`` in this theme, by ``HatPalette`` value.
    public var hatOverrides: [String: RGBColor]

    /// A hat's colour: ``HatPalette``'s, unless this theme overrides it.
    public func hat(_ name: String) -> RGBColor {
        let hex = HatPalette.color(for: name)
        return hatOverrides[hex] ?? RGBColor(hex: hex) ?? secondaryText
    }

    /// The web dashboard's `cyberpunk` theme.
    public static let cyberpunk = ThemePalette(
        background: rgb(0x0a0e27), surface: rgb(0x070a1d), surfaceRaised: rgb(0x10153a), border: rgb(0x2a2f5a),
        text: rgb(0xffffff), secondaryText: rgb(0xa0a0a0), accent: rgb(0x00d9ff), onAccent: rgb(0x0a0e27),
        success: rgb(0x39ff14), warning: rgb(0xffd700), danger: rgb(0xff006e), info: rgb(0x00d9ff), hatOverrides: [:]
    )

    /// The web dashboard's `contrast` theme: cyberpunk on black, brighter secondary text and borders, a lighter builder.
    public static let contrast = ThemePalette(
        background: rgb(0x000000), surface: rgb(0x000000), surfaceRaised: rgb(0x0b0b0b), border: rgb(0x8a8a8a),
        text: rgb(0xffffff), secondaryText: rgb(0xd0d0d0), accent: rgb(0x00d9ff), onAccent: rgb(0x0a0e27),
        success: rgb(0x39ff14), warning: rgb(0xffd700), danger: rgb(0xff006e), info: rgb(0x00d9ff),
        hatOverrides: ["#c71585": rgb(0xff5cc8)]
    )

    static func rgb(_ value: UInt32) -> RGBColor {
        RGBColor(red: UInt8(value >> 16 & 0xff), green: UInt8(value >> 8 & 0xff), blue: UInt8(value & 0xff))
    }
}
