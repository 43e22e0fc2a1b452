import Foundation

/// A reply's markdown as blocks a view lays out one by one: paragraphs, headings, code blocks with their language, lists,
/// quotes, tables and rules, each with inline runs (code, bold, italic, strikethrough, links).
///
/// It reads what Claude writes, not all of CommonMark, and never fails: anything it does not recognise is text. It is
/// made for streaming: a reply cut anywhere still parses, a code fence not closed yet is a code block marked
/// ``ChatMarkdownBlock/Kind/code(language:text:isClosed:)`` `isClosed: false`, and an unclosed `**` or `` ` `` is
/// shown as written until its closing marker arrives.
public struct ChatMarkdown: Hashable, Sendable {
    public let blocks: [ChatMarkdownBlock]

    public init(_ text: String) {
        var parser = BlockParser(lines: text.components(separatedBy: "\n").map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 })
        blocks = parser.parse()
    }

    /// The text without markup, blocks separated by blank lines: what VoiceOver reads and Copy copies.
    public var plainText: String { blocks.map(\.plainText).joined(separator: "\n\n") }
}

/// One block of a reply. `id` is its position, stable while a streamed reply grows (blocks are only appended, or the
/// last one extended).
public struct ChatMarkdownBlock: Hashable, Sendable, Identifiable {
    public enum Kind: Hashable, Sendable {
        case paragraph(ChatInline)
        case heading(level: Int, ChatInline)
        /// `language` from the fence (` ```swift `), nil without one; `isClosed` false while its closing fence has not arrived.
        case code(language: String?, text: String, isClosed: Bool)
        case list(ordered: Bool, items: [ChatListItem])
        case quote(ChatInline)
        case table(header: [ChatInline], rows: [[ChatInline]])
        case rule
    }

    public let id: Int
    public let kind: Kind

    public var plainText: String {
        switch kind {
        case .paragraph(let inline), .heading(_, let inline), .quote(let inline): inline.plainText
        case .code(_, let text, _): text
        case .list(let ordered, let items):
            items.map { String(repeating: "  ", count: $0.level) + $0.marker(ordered: ordered) + " " + $0.content.plainText }.joined(separator: "\n")
        case .table(let header, let rows): ([header] + rows).map { $0.map(\.plainText).joined(separator: " | ") }.joined(separator: "\n")
        case .rule: "—"
        }
    }

    /// What VoiceOver reads: the plain text, a code block introduced as such (`Code in swift: …`).
    public var accessibilityLabel: String {
        if case .code(let language, let text, _) = kind { return "Code" + (language.map { " in \($0)" } ?? "") + ": " + text }
        return plainText
    }

    /// The caption of a code block: its language, or `code`.
    public static func codeCaption(_ language: String?) -> String { language ?? "code" }
}

/// An item of a list: its nesting level (0 for the outer list), its number in an ordered list, and its text.
public struct ChatListItem: Hashable, Sendable {
    public let level: Int
    public let number: Int
    public let content: ChatInline

    /// `3.` in a numbered list, `•` in a bullet list.
    public func marker(ordered: Bool) -> String { ordered ? "\(number)." : "•" }
}

/// Text with inline markup, as runs.
public struct ChatInline: Hashable, Sendable {
    public let runs: [ChatInlineRun]

    public init(_ markdown: String) {
        var parser = ChatInlineParser(Array(markdown))
        runs = ChatInlineRun.merged(parser.parse(style: []))
    }

    public var plainText: String { runs.map(\.text).joined() }

    /// The runs as an `AttributedString` for `Text`: links as `link` attributes, and where Foundation has them (Apple
    /// platforms; Linux's Foundation has neither them nor `AttributedString(markdown:)`) code, bold, italic and
    /// strikethrough as inline presentation intents.
    public var attributed: AttributedString {
        var result = AttributedString()
        for run in runs {
            var piece = AttributedString(run.text)
            #if canImport(Darwin)
                var intent: InlinePresentationIntent = []
                if run.style.contains(.code) { intent.insert(.code) }
                if run.style.contains(.strong) { intent.insert(.stronglyEmphasized) }
                if run.style.contains(.emphasis) { intent.insert(.emphasized) }
                if run.style.contains(.strikethrough) { intent.insert(.strikethrough) }
                if !intent.isEmpty { piece.inlinePresentationIntent = intent }
            #endif
            if let link = run.link, let url = URL(string: link) { piece.link = url }
            result.append(piece)
        }
        return result
    }
}

/// A stretch of text with one style.
public struct ChatInlineRun: Hashable, Sendable {
    public struct Style: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let code = Style(rawValue: 1)
        public static let strong = Style(rawValue: 2)
        public static let emphasis = Style(rawValue: 4)
        public static let strikethrough = Style(rawValue: 8)
    }

    public let text: String
    public let style: Style
    /// The target of a link (`[text](url)`, `<url>` or a bare `https://…`).
    public let link: String?

    public init(_ text: String, style: Style = [], link: String? = nil) {
        self.text = text
        self.style = style
        self.link = link
    }

    /// Neighbours with the same style and link joined.
    static func merged(_ runs: [ChatInlineRun]) -> [ChatInlineRun] {
        var out: [ChatInlineRun] = []
        for run in runs where !run.text.isEmpty {
            if let last = out.last, last.style == run.style, last.link == run.link {
                out[out.count - 1] = ChatInlineRun(last.text + run.text, style: run.style, link: run.link)
            } else {
                out.append(run)
            }
        }
        return out
    }
}

// MARK: - Blocks

private struct BlockParser {
    let lines: [String]
    var index = 0
    var blocks: [ChatMarkdownBlock] = []

    init(lines: [String]) { self.lines = lines }

    mutating func parse() -> [ChatMarkdownBlock] {
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty {
                index += 1
            } else if let fence = Self.fence(trimmed) {
                code(fence: fence.marker, language: fence.language)
            } else if let (level, text) = Self.heading(trimmed) {
                add(.heading(level: level, ChatInline(text)))
                index += 1
            } else if Self.isRule(trimmed) {
                add(.rule)
                index += 1
            } else if Self.listMarker(line) != nil {
                list()
            } else if trimmed.hasPrefix(">") {
                quote()
            } else if trimmed.hasPrefix("|"), index + 1 < lines.count, Self.isTableSeparator(lines[index + 1]) {
                table()
            } else {
                paragraph()
            }
        }
        return blocks
    }

    mutating func add(_ kind: ChatMarkdownBlock.Kind) {
        blocks.append(ChatMarkdownBlock(id: blocks.count, kind: kind))
    }

    /// Lines up to the closing fence (same character, at least as long); to the end when it has not come yet.
    mutating func code(fence: String, language: String?) {
        index += 1
        var body: [String] = []
        var closed = false
        while index < lines.count {
            let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
            index += 1
            if trimmed.hasPrefix(fence), trimmed.allSatisfy({ $0 == fence.first }) {
                closed = true
                break
            }
            body.append(lines[index - 1])
        }
        add(.code(language: language, text: body.joined(separator: "\n"), isClosed: closed))
    }

    mutating func paragraph() {
        var text: [String] = []
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || Self.fence(trimmed) != nil || Self.heading(trimmed) != nil || Self.isRule(trimmed) || trimmed.hasPrefix(">") { break }
            if !text.isEmpty, Self.listMarker(line) != nil { break }
            text.append(trimmed)
            index += 1
        }
        add(.paragraph(ChatInline(text.joined(separator: "\n"))))
    }

    mutating func list() {
        guard let first = Self.listMarker(lines[index]) else { return }
        let ordered = first.ordered
        var items: [(level: Int, number: Int, text: String)] = []
        var baseIndent: Int?
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let marker = Self.listMarker(line) {
                let base = baseIndent ?? marker.indent
                baseIndent = base
                if marker.indent <= base && marker.ordered != ordered { break }
                let level = max(0, (marker.indent - base) / 2)
                items.append((level, marker.number ?? items.filter { $0.level == level }.count + 1, marker.text))
                index += 1
            } else if trimmed.isEmpty {
                // A blank line ends the list unless another item of it follows.
                var next = index + 1
                while next < lines.count && lines[next].trimmingCharacters(in: .whitespaces).isEmpty { next += 1 }
                guard next < lines.count, let marker = Self.listMarker(lines[next]), marker.ordered == ordered || marker.indent > (baseIndent ?? 0)
                else { break }
                index = next
            } else if line.first == " " || line.first == "\t", !items.isEmpty {
                items[items.count - 1].text += "\n" + trimmed
                index += 1
            } else {
                break
            }
        }
        add(.list(ordered: ordered, items: items.map { ChatListItem(level: $0.level, number: $0.number, content: ChatInline($0.text)) }))
    }

    mutating func quote() {
        var text: [String] = []
        while index < lines.count {
            let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix(">") else { break }
            text.append(String(trimmed.dropFirst()).trimmingCharacters(in: .whitespaces))
            index += 1
        }
        add(.quote(ChatInline(text.joined(separator: "\n"))))
    }

    mutating func table() {
        let header = Self.cells(lines[index])
        index += 2
        var rows: [[ChatInline]] = []
        while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces).hasPrefix("|") {
            var cells = Self.cells(lines[index])
            if cells.count < header.count { cells += Array(repeating: "", count: header.count - cells.count) }
            rows.append(cells.prefix(header.count).map(ChatInline.init))
            index += 1
        }
        add(.table(header: header.map(ChatInline.init), rows: rows))
    }

    // MARK: Line kinds

    static func fence(_ trimmed: String) -> (marker: String, language: String?)? {
        for character in ["`", "~"] where trimmed.hasPrefix(String(repeating: character, count: 3)) {
            let marker = String(trimmed.prefix { String($0) == character })
            let info = trimmed.dropFirst(marker.count).trimmingCharacters(in: .whitespaces)
            if character == "`" && info.contains("`") { return nil }
            let language = info.split(separator: " ").first.map(String.init)
            return (marker, language)
        }
        return nil
    }

    static func heading(_ trimmed: String) -> (Int, String)? {
        let hashes = trimmed.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes) else { return nil }
        let rest = trimmed.dropFirst(hashes)
        guard rest.isEmpty || rest.first == " " else { return nil }
        var text = rest.trimmingCharacters(in: .whitespaces)
        while text.hasSuffix("#") { text.removeLast() }
        return (hashes, text.trimmingCharacters(in: .whitespaces))
    }

    static func isRule(_ trimmed: String) -> Bool {
        let compact = trimmed.filter { $0 != " " }
        guard compact.count >= 3, let first = compact.first, "-*_".contains(first) else { return false }
        return compact.allSatisfy { $0 == first }
    }

    struct ListMarker {
        var indent: Int
        var ordered: Bool
        var number: Int?
        var text: String
    }

    static func listMarker(_ line: String) -> ListMarker? {
        let indent = line.prefix { $0 == " " || $0 == "\t" }.reduce(0) { $0 + ($1 == "\t" ? 4 : 1) }
        let rest = line.drop { $0 == " " || $0 == "\t" }
        if let first = rest.first, "-*+".contains(first), rest.dropFirst().first == " " {
            return ListMarker(indent: indent, ordered: false, number: nil, text: rest.dropFirst(2).trimmingCharacters(in: .whitespaces))
        }
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard (1...9).contains(digits.count), let number = Int(digits) else { return nil }
        let after = rest.dropFirst(digits.count)
        guard let mark = after.first, mark == "." || mark == ")", after.dropFirst().first == " " else { return nil }
        return ListMarker(indent: indent, ordered: true, number: number, text: after.dropFirst(2).trimmingCharacters(in: .whitespaces))
    }

    static func isTableSeparator(_ line: String) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("|") && trimmed.contains("-") && trimmed.allSatisfy { "|-: ".contains($0) }
    }

    static func cells(_ line: String) -> [String] {
        var trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("|") { trimmed.removeFirst() }
        if trimmed.hasSuffix("|") { trimmed.removeLast() }
        return trimmed.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
