import RalphAPI

/// A colour of the app's theme, by what it is for; its RGB value depends on the theme chosen (``AppTheme``).
///
/// In SwiftUI: `Color(theme: .accent)`, `Color(theme: .hat(session.hat))`. The values are the web dashboard's
/// (`assets/css/app.css`): neon on deep navy. Every text colour reaches the WCAG AA contrast ratio (4.5) against every
/// background it is used on, in every theme; the tests check it (``textColors`` × ``backgrounds``, ``filledPairs``).
public struct ThemeColor: Hashable, Sendable {
    /// What a colour is for.
    public enum Token: Hashable, Sendable {
        case background, surface, surfaceRaised, border
        case text, secondaryText, accent, onAccent, success, warning, danger, info
        /// The backgrounds of a diff's added and removed lines.
        case diffAdded, diffRemoved
        /// A hat's own colour (dots, bars, flow diagrams): the original app's hat colours.
        case hat(String)
        /// A hat's name written in its colour: the hat colour, lightened where needed to stay readable.
        case hatLabel(String)
    }

    public let token: Token

    public init(_ token: Token) { self.token = token }

    /// The screen behind everything (web `--bg`).
    public static let background = ThemeColor(.background)
    /// Insets inside cards: stats, code, the tab bar (web `--bg-sunken`).
    public static let surface = ThemeColor(.surface)
    /// Cards, list rows, sheets (web `--bg-raised`).
    public static let surfaceRaised = ThemeColor(.surfaceRaised)
    /// Separators and outlines (a graphic, never text).
    public static let border = ThemeColor(.border)
    public static let text = ThemeColor(.text)
    /// Labels, timestamps, hints.
    public static let secondaryText = ThemeColor(.secondaryText)
    /// Links, the selected tab, primary buttons' fill, "operator" (web cyan).
    public static let accent = ThemeColor(.accent)
    /// Text and icons on a filled ``accent``, ``danger``, ``success`` or ``warning`` button or badge.
    public static let onAccent = ThemeColor(.onAccent)
    /// Live, running, connected (web `--ok`).
    public static let success = ThemeColor(.success)
    /// Paused, reconnecting, waiting for an approval (web `--warn`).
    public static let warning = ThemeColor(.warning)
    /// Failed, stopped, destructive actions, "admin" (web pink).
    public static let danger = ThemeColor(.danger)
    /// Complete, idle (the web dashboard shows these in its cyan too).
    public static let info = ThemeColor(.info)

    /// Behind an added line of a diff: ``surface`` tinted with ``success``.
    public static let diffAdded = ThemeColor(.diffAdded)
    /// Behind a removed line of a diff: ``surface`` tinted with ``danger``.
    public static let diffRemoved = ThemeColor(.diffRemoved)
    /// How much of the line colour tints a diff line's background.
    public static let diffTint = 0.16

    /// The original app's colour of a hat (planner cyan, builder purple, reviewer green, fixer pink, architect gold;
    /// other hats get a stable colour of their own, ``HatPalette``). For dots and bars; write a hat's name in
    /// ``hatLabel(_:)``.
    public static func hat(_ name: String) -> ThemeColor { ThemeColor(.hat(name)) }

    /// A hat's name in its colour, readable (≥ 4.5) on every background.
    public static func hatLabel(_ name: String) -> ThemeColor { ThemeColor(.hatLabel(name)) }

    /// A role's badge colour, as on the web dashboard: admin pink, operator cyan, viewer grey.
    public static func role(_ role: RalphAPI.Role) -> ThemeColor {
        switch role {
        case .admin: .danger
        case .operator: .accent
        case .viewer: .secondaryText
        }
    }

    /// The colours text is written in.
    public static let textColors: [ThemeColor] = [.text, .secondaryText, .accent, .success, .warning, .danger, .info]
    /// The colours text is written on.
    public static let backgrounds: [ThemeColor] = [.background, .surface, .surfaceRaised]
    /// What a diff's lines are written on: the view's ``surface`` and the added and removed lines' tints.
    public static let diffBackgrounds: [ThemeColor] = [.surface, .diffAdded, .diffRemoved]
    /// Text on a filled colour: (text, fill).
    public static let filledPairs: [(text: ThemeColor, fill: ThemeColor)] = [
        (.onAccent, .accent), (.onAccent, .danger), (.onAccent, .success), (.onAccent, .warning),
    ]

    /// Its value in `theme`.
    public func rgb(in theme: AppTheme = .cyberpunk) -> RGBColor {
        let palette = theme.palette
        switch token {
        case .background: return palette.background
        case .surface: return palette.surface
        case .surfaceRaised: return palette.surfaceRaised
        case .border: return palette.border
        case .text: return palette.text
        case .secondaryText: return palette.secondaryText
        case .accent: return palette.accent
        case .onAccent: return palette.onAccent
        case .success: return palette.success
        case .warning: return palette.warning
        case .danger: return palette.danger
        case .info: return palette.info
        case .diffAdded: return palette.surface.mixed(with: palette.success, amount: Self.diffTint)
        case .diffRemoved: return palette.surface.mixed(with: palette.danger, amount: Self.diffTint)
        case .hat(let name): return palette.hat(name)
        case .hatLabel(let name):
            let backgrounds = Self.backgrounds.map { $0.rgb(in: theme) }
            return palette.hat(name).readable(on: backgrounds, minimum: 4.5, towards: palette.text)
        }
    }

    /// The WCAG contrast ratio of this colour with `other` in `theme`.
    public func contrastRatio(with other: ThemeColor, in theme: AppTheme = .cyberpunk) -> Double {
        rgb(in: theme).contrastRatio(with: other.rgb(in: theme))
    }
}
