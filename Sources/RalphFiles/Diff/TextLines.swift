/// A text as its lines (split on `\n`, without it) and whether the last line ends with one: what the diff engine
/// compares and what patches are applied to. `"a\nb"` is `["a", "b"]` without a final newline; `"a\nb\n"` the same
/// lines with one; `""` has no lines. A `\r` stays part of its line.
///
/// Lines are compared by their UTF-8 bytes (``same(_:_:)``), never by `String`'s Unicode equivalence, so a change that
/// only re-encodes a character is still a change.
public struct TextLines: Sendable, Equatable {
    /// The lines, without their `\n`.
    public var lines: [String]
    /// Whether the last line ends with `\n` (true for a text without lines).
    public var endsWithNewline: Bool

    public init(lines: [String], endsWithNewline: Bool = true) {
        self.lines = lines
        self.endsWithNewline = endsWithNewline || lines.isEmpty
    }

    /// Splits `text` into its lines.
    public init(_ text: String) {
        var parts = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(Substring($0)) }
        if parts.last?.isEmpty == true {
            parts.removeLast()
            self.init(lines: parts, endsWithNewline: true)
        } else {
            self.init(lines: parts, endsWithNewline: false)
        }
    }

    /// The text again: the lines joined with `\n`, and a final one when ``endsWithNewline``.
    public var text: String {
        guard !lines.isEmpty else { return "" }
        return lines.joined(separator: "\n") + (endsWithNewline ? "\n" : "")
    }

    public static func == (lhs: TextLines, rhs: TextLines) -> Bool {
        lhs.endsWithNewline == rhs.endsWithNewline && lhs.lines.count == rhs.lines.count
            && zip(lhs.lines, rhs.lines).allSatisfy { same($0, $1) }
    }

    /// Whether two lines have the same bytes.
    public static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
    }

    /// Whether two lines are the same once trailing spaces, tabs and carriage returns are ignored.
    static func sameIgnoringTrailingSpace(_ a: String, _ b: String) -> Bool {
        trimmedEnd(a.utf8).elementsEqual(trimmedEnd(b.utf8))
    }

    /// Whether two lines are the same once leading and trailing spaces, tabs and carriage returns are ignored.
    static func sameIgnoringSurroundingSpace(_ a: String, _ b: String) -> Bool {
        trimmed(a.utf8).elementsEqual(trimmed(b.utf8))
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }

    private static func trimmedEnd(_ bytes: String.UTF8View) -> Substring.UTF8View {
        var end = bytes.endIndex
        while end > bytes.startIndex, isSpace(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return Substring(bytes[bytes.startIndex..<end]).utf8
    }

    private static func trimmed(_ bytes: String.UTF8View) -> Substring.UTF8View {
        let end = trimmedEnd(bytes)
        var start = end.startIndex
        while start < end.endIndex, isSpace(end[start]) { start = end.index(after: start) }
        return Substring(end[start..<end.endIndex]).utf8
    }
}

/// A line as a dictionary key by its bytes, and whether it is a last line without a newline (so that `"b"` at the end
/// of a file without one and `"b\n"` are different lines, and the diff shows the newline's change).
struct LineKey: Hashable {
    let text: String
    let missingNewline: Bool

    static func == (lhs: LineKey, rhs: LineKey) -> Bool {
        lhs.missingNewline == rhs.missingNewline && TextLines.same(lhs.text, rhs.text)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(missingNewline)
        var copy = text
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
