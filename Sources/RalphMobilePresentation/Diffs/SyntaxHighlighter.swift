import Foundation

/// A run of a line's text with one colour: the tokens of a line, put together, are the line.
public struct SyntaxToken: Hashable, Sendable {
    /// What a run of text is, which decides its colour (``color``).
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case plain, keyword, string, comment, number
    }

    public let kind: Kind
    public let text: String

    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.text = text
    }

    /// The theme colour a run of this kind is written in.
    public var color: ThemeColor { Self.color(of: kind) }

    /// Keywords in the accent, strings in gold, numbers in green, comments dimmed, the rest as text. Each is readable on
    /// every line background of a diff (checked in the tests).
    public static func color(of kind: Kind) -> ThemeColor {
        switch kind {
        case .plain: .text
        case .keyword: .accent
        case .string: .warning
        case .comment: .secondaryText
        case .number: .success
        }
    }
}

/// Splits lines of code into ``SyntaxToken``s for one ``SyntaxLanguage``: keywords, strings, comments and numbers.
///
/// A line is read on its own, except that a block comment or a multi-line string left open at its end carries into the
/// next line read with the same ``State`` (a diff keeps one state per side, so context lines continue both).
public struct SyntaxHighlighter: Sendable {
    /// Where a line starts: in code, or inside a comment or string an earlier line opened.
    public enum State: Hashable, Sendable {
        case code
        case blockComment
        /// Inside a string closed by this delimiter (`"""`, `'''`, a backtick).
        case string(String)
    }

    public let language: SyntaxLanguage

    public init(_ language: SyntaxLanguage) { self.language = language }

    /// The tokens of one line read on its own.
    public func tokens(_ line: String) -> [SyntaxToken] {
        var state = State.code
        return tokens(line, state: &state)
    }

    /// The tokens of `line`, starting in `state`, which is left as the line ends.
    public func tokens(_ line: String, state: inout State) -> [SyntaxToken] {
        var scan = Scan(Array(line))
        guard language != .plain else {
            scan.emit(.plain, upTo: scan.chars.count)
            return scan.tokens
        }
        switch state {
        case .code: break
        case .blockComment:
            if let end = scan.find(["*", "/"], from: 0) {
                scan.emit(.comment, upTo: end)
                state = .code
            } else {
                scan.emit(.comment, upTo: scan.chars.count)
                return scan.tokens
            }
        case .string(let delimiter):
            if let end = scan.closing(Array(delimiter), from: 0, escapes: language.escapes(in: delimiter)) {
                scan.emit(.string, upTo: end)
                state = .code
            } else {
                scan.emit(.string, upTo: scan.chars.count)
                return scan.tokens
            }
        }
        code(&scan, state: &state)
        return scan.tokens
    }

    /// Reads code from the scan's position to the end of the line.
    private func code(_ scan: inout Scan, state: inout State) {
        let chars = scan.chars
        while scan.position < chars.count {
            let i = scan.position
            let ch = chars[i]
            if let comment = language.lineComment, scan.matches(Array(comment), at: i),
                language != .shell || i == 0 || chars[i - 1].isWhitespace
            {
                scan.emit(.comment, upTo: chars.count)
                return
            }
            if language.hasBlockComments, scan.matches(["/", "*"], at: i) {
                guard let end = scan.find(["*", "/"], from: i + 2) else {
                    scan.emit(.comment, upTo: chars.count)
                    state = .blockComment
                    return
                }
                scan.emit(.comment, upTo: end)
                continue
            }
            if let delimiter = language.multilineQuotes.first(where: { scan.matches(Array($0), at: i) }) {
                guard let end = scan.closing(Array(delimiter), from: i + delimiter.count, escapes: language.escapes(in: delimiter)) else {
                    scan.emit(.string, upTo: chars.count)
                    state = .string(delimiter)
                    return
                }
                scan.emit(.string, upTo: end)
                continue
            }
            if language.quotes.contains(ch) {
                let end = scan.closing([ch], from: i + 1, escapes: language.escapes(in: String(ch))) ?? chars.count
                scan.emit(.string, upTo: end)
                continue
            }
            if ch.isASCII, ch.isNumber, i == 0 || !isIdentifier(chars[i - 1]) {
                var end = i + 1
                while end < chars.count, isIdentifier(chars[end]) || (chars[end] == "." && end + 1 < chars.count && chars[end + 1].isNumber) {
                    end += 1
                }
                scan.emit(.number, upTo: end)
                continue
            }
            if language.attributePrefixes.contains(ch), i + 1 < chars.count, isIdentifierStart(chars[i + 1]) {
                scan.emit(.keyword, upTo: identifierEnd(chars, from: i + 1))
                continue
            }
            if isIdentifierStart(ch) {
                let end = identifierEnd(chars, from: i)
                let word = String(chars[i..<end])
                let afterDollar = i > 0 && chars[i - 1] == "$"
                scan.emit(!afterDollar && language.keywords.contains(word) ? .keyword : .plain, upTo: end)
                continue
            }
            scan.emit(.plain, upTo: i + 1)
        }
    }

    private func isIdentifierStart(_ ch: Character) -> Bool { ch.isLetter || ch == "_" || (language == .javascript && ch == "$") }
    private func isIdentifier(_ ch: Character) -> Bool { isIdentifierStart(ch) || ch.isNumber }

    private func identifierEnd(_ chars: [Character], from start: Int) -> Int {
        var end = start
        while end < chars.count, isIdentifier(chars[end]) { end += 1 }
        return end
    }
}

/// A position in a line and the tokens read so far (runs of one kind are merged).
private struct Scan {
    let chars: [Character]
    var position = 0
    var tokens: [SyntaxToken] = []

    init(_ chars: [Character]) { self.chars = chars }

    /// Adds the characters from the position up to `end` as one run of `kind`, and moves there.
    mutating func emit(_ kind: SyntaxToken.Kind, upTo end: Int) {
        guard end > position else { return }
        let text = String(chars[position..<end])
        if let last = tokens.last, last.kind == kind {
            tokens[tokens.count - 1] = SyntaxToken(kind, last.text + text)
        } else {
            tokens.append(SyntaxToken(kind, text))
        }
        position = end
    }

    func matches(_ pattern: [Character], at index: Int) -> Bool {
        index + pattern.count <= chars.count && Array(chars[index..<index + pattern.count]) == pattern
    }

    /// The index just past the first `pattern` at or after `start`.
    func find(_ pattern: [Character], from start: Int) -> Int? {
        var i = start
        while i + pattern.count <= chars.count {
            if matches(pattern, at: i) { return i + pattern.count }
            i += 1
        }
        return nil
    }

    /// The index just past the delimiter that closes a string whose text starts at `start`; a backslash skips the
    /// character after it when `escapes`.
    func closing(_ delimiter: [Character], from start: Int, escapes: Bool) -> Int? {
        var i = start
        while i < chars.count {
            if escapes && chars[i] == "\\" {
                i += 2
                continue
            }
            if matches(delimiter, at: i) { return i + delimiter.count }
            i += 1
        }
        return nil
    }
}
