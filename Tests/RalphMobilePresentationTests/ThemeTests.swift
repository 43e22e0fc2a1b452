import Foundation
import RalphAPI
import Testing

@testable import RalphMobilePresentation

@Suite("The theme: the web dashboard's colours, with WCAG AA contrast")
struct ThemeTests {
    @Test("the contrast ratio follows WCAG 2: 21 for black on white, 1 for a colour on itself, symmetric")
    func contrastFormula() throws {
        #expect(abs(RGBColor.black.contrastRatio(with: .white) - 21) < 0.0001)
        #expect(RGBColor.white.contrastRatio(with: .white) == 1)
        let navy = try #require(RGBColor(hex: "#0a0e27"))
        let cyan = try #require(RGBColor(hex: "00D9FF"))
        #expect(navy.contrastRatio(with: cyan) == cyan.contrastRatio(with: navy))
        // Known values: mid grey #777777 on white is 4.48 (just below AA), #767676 is 4.54 (the lightest grey that passes).
        #expect(abs(RGBColor(hex: "#777777")!.contrastRatio(with: .white) - 4.48) < 0.01)
        #expect(abs(RGBColor(hex: "#767676")!.contrastRatio(with: .white) - 4.54) < 0.01)
        #expect(RGBColor(hex: "#12345") == nil)
        #expect(RGBColor(hex: "#gg0000") == nil)
        #expect(cyan.hex == "#00d9ff")
    }

    @Test("the cyberpunk palette is the web dashboard's", arguments: [
        (ThemeColor.background, "#0a0e27"), (.surface, "#070a1d"), (.surfaceRaised, "#10153a"), (.text, "#ffffff"), (.secondaryText, "#a0a0a0"),
        (.accent, "#00d9ff"), (.success, "#39ff14"), (.warning, "#ffd700"), (.danger, "#ff006e"), (.onAccent, "#0a0e27"),
    ])
    func webPalette(color: ThemeColor, hex: String) throws {
        let css = try String(contentsOfFile: Self.repository + "/Sources/RalphMobileServer/Resources/web/assets/css/app.css", encoding: .utf8)
        #expect(color.rgb(in: .cyberpunk).hex == hex)
        #expect(css.lowercased().contains(hex), "\(hex) is one of the dashboard's colours")
    }

    @Test("hats keep the original app's colours: planner cyan, builder purple, reviewer green, fixer pink, architect gold")
    func hatColours() {
        #expect(ThemeColor.hat("planner").rgb().hex == "#00d9ff")
        #expect(ThemeColor.hat("builder").rgb().hex == "#c71585")
        #expect(ThemeColor.hat("reviewer").rgb().hex == "#39ff14")
        #expect(ThemeColor.hat("fixer").rgb().hex == "#ff006e")
        #expect(ThemeColor.hat("architect").rgb().hex == "#ffd700")
        #expect(ThemeColor.hat("🏗️ Builder").rgb() == ThemeColor.hat("builder").rgb(), "an emoji prefix and case are ignored")
        #expect(ThemeColor.hat("deployer").rgb() == ThemeColor.hat("deployer").rgb(), "other hats get a stable colour")
        #expect(ThemeColor.hat("builder").rgb(in: .contrast).hex == "#ff5cc8", "the high-contrast theme's lighter builder")
    }

    /// Every hat the tests try: the known ones, and others that fall on each colour of the fallback palette.
    static let hats = ["planner", "builder", "reviewer", "fixer", "architect", "loop"] + "abcdefghijklmnopqrstuvwxyz".flatMap { ["x\($0)", "zy\($0)"] }

    @Test("the hats tried cover every colour of the fallback palette")
    func hatsCoverThePalette() {
        #expect(Set(Self.hats.map { HatPalette.color(for: $0) }).isSuperset(of: HatPalette.others))
    }

    @Test("every text colour reaches 4.5:1 against every background, in every theme", arguments: AppTheme.allCases)
    func textContrast(theme: AppTheme) {
        for text in ThemeColor.textColors {
            for background in ThemeColor.backgrounds {
                let ratio = text.contrastRatio(with: background, in: theme)
                #expect(ratio >= 4.5, "\(text.token) \(text.rgb(in: theme)) on \(background.token) \(background.rgb(in: theme)): \(ratio)")
            }
        }
    }

    @Test("text on a filled accent, danger, success or warning reaches 4.5:1", arguments: AppTheme.allCases)
    func filledContrast(theme: AppTheme) {
        for (text, fill) in ThemeColor.filledPairs {
            let ratio = text.contrastRatio(with: fill, in: theme)
            #expect(ratio >= 4.5, "\(text.token) on \(fill.token) in \(theme): \(ratio)")
        }
    }

    @Test("hat names written in their colour reach 4.5:1; hat dots reach the 3:1 of graphics", arguments: AppTheme.allCases)
    func hatContrast(theme: AppTheme) {
        for hat in Self.hats {
            for background in ThemeColor.backgrounds {
                let label = ThemeColor.hatLabel(hat).contrastRatio(with: background, in: theme)
                #expect(label >= 4.5, "\(hat) label on \(background.token) in \(theme): \(label)")
                let dot = ThemeColor.hat(hat).contrastRatio(with: background, in: theme)
                #expect(dot >= 3, "\(hat) dot on \(background.token) in \(theme): \(dot)")
            }
        }
    }

    @Test("a hat label differs from its colour only where the colour is too dark to read")
    func hatLabelsChangeOnlyWhenNeeded() {
        // Planner cyan is readable as it is; builder purple (3.3:1 on a card) is lightened.
        #expect(ThemeColor.hatLabel("planner").rgb() == ThemeColor.hat("planner").rgb())
        #expect(ThemeColor.hat("builder").contrastRatio(with: .surfaceRaised) < 4.5)
        #expect(ThemeColor.hatLabel("builder").rgb() != ThemeColor.hat("builder").rgb())
    }

    @Test("the theme choice is remembered in the preferences file; an unknown theme falls back to cyberpunk")
    func preferencesRoundTrip() throws {
        let directory = NSTemporaryDirectory() + "rm-theme-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/preferences.json"
        #expect(AppPreferences.load(from: file).theme == .cyberpunk, "no file: the default")
        try AppPreferences(theme: .contrast).save(to: file)
        #expect(AppPreferences.load(from: file).theme == .contrast)
        try Data(#"{"theme": "vaporwave"}"#.utf8).write(to: URL(fileURLWithPath: file))
        #expect(AppPreferences.load(from: file).theme == .cyberpunk)
        #expect(AppTheme.allCases.map(\.title) == ["Cyberpunk", "High contrast"])
    }

    /// The repository's root (this file is Tests/RalphMobilePresentationTests/ThemeTests.swift).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}
