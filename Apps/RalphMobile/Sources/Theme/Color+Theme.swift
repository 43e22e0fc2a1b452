import RalphMobilePresentation
import SwiftUI
import UIKit

/// The theme chosen in Settings, as a UIKit trait: dynamic colours resolve against it wherever they are drawn.
struct AppThemeTrait: UITraitDefinition {
    static let defaultValue = AppTheme.cyberpunk
    static let affectsColorAppearance = true
    static let name = "RalphMobileTheme"
}

extension UITraitCollection {
    var appTheme: AppTheme { self[AppThemeTrait.self] }
}

extension UIMutableTraits {
    var appTheme: AppTheme {
        get { self[AppThemeTrait.self] }
        set { self[AppThemeTrait.self] = newValue }
    }
}

/// The same theme in the SwiftUI environment, bridged to the trait: `.environment(\.appTheme, …)` at the root reaches
/// every colour below it.
struct AppThemeKey: EnvironmentKey {
    static let defaultValue = AppTheme.cyberpunk
}

extension AppThemeKey: UITraitBridgedEnvironmentKey {
    static func read(from traitCollection: UITraitCollection) -> AppTheme {
        traitCollection.appTheme
    }

    static func write(to mutableTraits: inout any UIMutableTraits, value: AppTheme) {
        mutableTraits.appTheme = value
    }
}

extension EnvironmentValues {
    var appTheme: AppTheme {
        get { self[AppThemeKey.self] }
        set { self[AppThemeKey.self] = newValue }
    }
}

extension UIColor {
    /// A colour of the app's theme, resolved against the theme trait.
    convenience init(theme color: ThemeColor) {
        self.init { traits in UIColor(rgb: color.rgb(in: traits.appTheme)) }
    }

    convenience init(rgb: RGBColor) {
        let components = rgb.components
        self.init(red: components.red, green: components.green, blue: components.blue, alpha: 1)
    }
}

extension Color {
    /// A colour of the app's theme: `Color(theme: .accent)`, `Color(theme: .hatLabel(session.hat))`.
    init(theme color: ThemeColor) {
        self.init(uiColor: UIColor(theme: color))
    }
}
