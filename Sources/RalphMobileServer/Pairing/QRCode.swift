import CQRencode
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A QR code made by Debian's libqrencode (`CQRencode`): its module matrix, drawn as terminal text (`ralph-mobile-server
/// pair`) or as SVG (the admin settings' "Pair a phone" section).
///
/// The encoder is libqrencode's, not ours: this type only copies the matrix out of the C struct and draws it. Error
/// correction level M (15 % of the symbol can be lost), byte mode, the smallest version that holds the text.
public struct QRCode: Sendable, Equatable {
    /// Why a text could not be encoded.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// Modules per side, without the quiet zone.
    public let size: Int
    /// Row-major, `true` for a dark module.
    public let modules: [Bool]
    /// The light margin every reader needs around the symbol, in modules (the standard asks for 4).
    public static let quietZone = 4

    /// Encodes `text` (UTF-8 bytes). Throws for an empty text or one too long for the largest symbol (version 40).
    public init(encoding text: String) throws(Failure) {
        guard !text.isEmpty else { throw Failure(description: "cannot make a QR code of an empty text") }
        guard text.utf8.count <= 2331 else {
            throw Failure(description: "a text of \(text.utf8.count) bytes is too long for a QR code (at most 2331 at error correction level M)")
        }
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else {
            throw Failure(description: "libqrencode could not encode the text: \(String(cString: strerror(errno)))")
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        // libqrencode's byte per module: bit 0 is the colour (1 = dark), the other bits say what the module is for.
        let data = UnsafeBufferPointer(start: code.pointee.data, count: width * width)
        size = width
        modules = data.map { $0 & 1 == 1 }
    }

    /// Whether the module at column `x`, row `y` is dark; coordinates outside the symbol (the quiet zone) are light.
    public func isDark(x: Int, y: Int) -> Bool {
        guard (0..<size).contains(x), (0..<size).contains(y) else { return false }
        return modules[y * size + x]
    }

    /// The code as terminal text: two module rows per line with Unicode half blocks (`▀`, `▄`, `█`), with the quiet
    /// zone around it.
    ///
    /// With `colors` (the default) every line is drawn black on white with ANSI escapes, so the code reads the same on
    /// dark and light terminals. Without (`--plain`, for a file or a terminal without colours), dark modules are the
    /// drawn blocks and light ones spaces: black on white on a light terminal, and inverted — which most phone cameras
    /// still read — on a dark one.
    public func terminalText(colors: Bool = true) -> String {
        let zone = Self.quietZone
        let first = -zone
        let last = size + zone
        var lines: [String] = []
        var y = first
        while y < last {
            var line = ""
            for x in first..<last {
                let top = isDark(x: x, y: y)
                let bottom = y + 1 < last && isDark(x: x, y: y + 1)
                line += Self.halfBlock(top: top, bottom: bottom)
            }
            // Black foreground (dark modules) on bright white (light ones), reset at the end of each line.
            lines.append(colors ? "\u{1B}[30;107m" + line + "\u{1B}[0m" : line)
            y += 2
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The character showing a dark (drawn) or light upper and lower half.
    static func halfBlock(top: Bool, bottom: Bool) -> String {
        switch (top, bottom) {
        case (true, true): "█"
        case (true, false): "▀"
        case (false, true): "▄"
        case (false, false): " "
        }
    }

    /// The code as a standalone SVG image: black modules on a white square that includes the quiet zone, one unit per
    /// module, `crispEdges` so scaled modules stay sharp. `title` becomes the image's accessible name.
    public func svg(title: String = "QR code") -> String {
        let side = size + 2 * Self.quietZone
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                // One rectangle per horizontal run of dark modules keeps the path short.
                var run = 1
                while isDark(x: x + run, y: y) { run += 1 }
                path += "M\(x + Self.quietZone) \(y + Self.quietZone)h\(run)v1h-\(run)z"
                x += run
            }
        }
        let escapedTitle = title.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges" role="img">\
            <title>\(escapedTitle)</title><rect width="\(side)" height="\(side)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
            """
    }
}
