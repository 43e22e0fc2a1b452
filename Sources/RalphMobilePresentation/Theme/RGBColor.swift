import Foundation

/// An sRGB colour with its WCAG 2 relative luminance and contrast ratio: the numbers the app's palette is checked with.
public struct RGBColor: Hashable, Sendable, CustomStringConvertible {
    /// 0 – 255 each.
    public let red: UInt8
    public let green: UInt8
    public let blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `#rrggbb` or `rrggbb` (case-insensitive); nil for anything else.
    public init?(hex: String) {
        var digits = Substring(hex.trimmingCharacters(in: .whitespaces))
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else { return nil }
        self.init(red: UInt8(value >> 16 & 0xff), green: UInt8(value >> 8 & 0xff), blue: UInt8(value & 0xff))
    }

    /// `#rrggbb`, lower case.
    public var hex: String { String(format: "#%02x%02x%02x", red, green, blue) }
    public var description: String { hex }

    /// Components from 0 to 1, for `Color(.sRGB, red:green:blue:)`.
    public var components: (red: Double, green: Double, blue: Double) {
        (Double(red) / 255, Double(green) / 255, Double(blue) / 255)
    }

    /// WCAG 2 relative luminance: 0 for black, 1 for white.
    public var relativeLuminance: Double {
        func linear(_ channel: UInt8) -> Double {
            let c = Double(channel) / 255
            return c <= 0.040_45 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// WCAG 2 contrast ratio with another colour, from 1 (same) to 21 (black on white); symmetric.
    public func contrastRatio(with other: RGBColor) -> Double {
        let (a, b) = (relativeLuminance, other.relativeLuminance)
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// This colour mixed with `other`: `amount` 0 is this colour, 1 is `other`.
    public func mixed(with other: RGBColor, amount: Double) -> RGBColor {
        let t = min(max(amount, 0), 1)
        func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * t).rounded()) }
        return RGBColor(red: mix(red, other.red), green: mix(green, other.green), blue: mix(blue, other.blue))
    }

    /// The first mix of this colour towards `target` (in steps of 5 %) that reaches `minimum` contrast against every
    /// colour of `backgrounds`; the colour itself when it already does.
    public func readable(on backgrounds: [RGBColor], minimum: Double, towards target: RGBColor) -> RGBColor {
        for step in 0...20 {
            let candidate = mixed(with: target, amount: Double(step) / 20)
            if backgrounds.allSatisfy({ candidate.contrastRatio(with: $0) >= minimum }) { return candidate }
        }
        return target
    }

    public static let white = RGBColor(red: 255, green: 255, blue: 255)
    public static let black = RGBColor(red: 0, green: 0, blue: 0)
}
