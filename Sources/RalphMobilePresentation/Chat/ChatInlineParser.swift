import Foundation

/// Reads inline markdown (code spans, emphasis, strikethrough, links) into runs; unclosed markers stay text.
struct ChatInlineParser {
    let characters: [Character]
    var position = 0

    init(_ characters: [Character]) { self.characters = characters }

    /// Runs until the end, or until `closing` (consumed) when given.
    mutating func parse(style: ChatInlineRun.Style, until closing: [Character]? = nil) -> [ChatInlineRun] {
        var runs: [ChatInlineRun] = []
        var text = ""
        func flush() {
            if !text.isEmpty { runs.append(ChatInlineRun(text, style: style)) }
            text = ""
        }
        while position < characters.count {
            if let closing, matches(closing) {
                flush()
                position += closing.count
                return runs
            }
            let c = characters[position]
            if c == "\\", position + 1 < characters.count, characters[position + 1].isPunctuation || characters[position + 1].isSymbol {
                text.append(characters[position + 1])
                position += 2
            } else if c == "`", let code = codeSpan() {
                flush()
                runs.append(ChatInlineRun(code, style: style.union(.code)))
            } else if let (marker, added) = emphasisMarker(), let inner = enclosed(by: marker, style: style.union(added)) {
                flush()
                runs += inner
            } else if c == "[", let link = bracketLink(style: style) {
                flush()
                runs += link
            } else if c == "<", let url = angleLink() {
                flush()
                runs.append(ChatInlineRun(url, style: style, link: url))
            } else if c == "h", atWordStart, let url = bareLink() {
                flush()
                runs.append(ChatInlineRun(url, style: style, link: url))
            } else {
                text.append(c)
                position += 1
            }
        }
        flush()
        return runs
    }

    func matches(_ marker: [Character]) -> Bool {
        position + marker.count <= characters.count && Array(characters[position..<position + marker.count]) == marker
    }

    var atWordStart: Bool { position == 0 || !(characters[position - 1].isLetter || characters[position - 1].isNumber) }

    /// `` `code` `` with any number of backticks; nil (left as text) when it is not closed.
    mutating func codeSpan() -> String? {
        let ticks = characters[position...].prefix { $0 == "`" }.count
        var search = position + ticks
        while search < characters.count {
            if characters[search] == "`" {
                let run = characters[search...].prefix { $0 == "`" }.count
                if run == ticks {
                    var body = String(characters[(position + ticks)..<search])
                    if body.count > 2, body.hasPrefix(" "), body.hasSuffix(" ") { body = String(body.dropFirst().dropLast()) }
                    position = search + ticks
                    return body
                }
                search += run
            } else {
                search += 1
            }
        }
        return nil
    }

    /// `**`, `__`, `~~`, `*` or `_` (the underscores only at the start of a word) followed by a non-space.
    func emphasisMarker() -> ([Character], ChatInlineRun.Style)? {
        let candidates: [([Character], ChatInlineRun.Style)] = [
            (["*", "*"], .strong), (["_", "_"], .strong), (["~", "~"], .strikethrough), (["*"], .emphasis), (["_"], .emphasis),
        ]
        for (marker, style) in candidates where matches(marker) {
            if marker.first == "_" && !atWordStart { return nil }
            let after = position + marker.count
            guard after < characters.count, !characters[after].isWhitespace, characters[after] != marker[0] || marker.count == 2 else { continue }
            return (marker, style)
        }
        return nil
    }

    /// The styled runs up to the closing marker, or nil (position unchanged) when it does not close.
    mutating func enclosed(by marker: [Character], style: ChatInlineRun.Style) -> [ChatInlineRun]? {
        guard let close = closingIndex(of: marker, from: position + marker.count) else { return nil }
        var inner = ChatInlineParser(Array(characters[(position + marker.count)..<close]))
        let runs = inner.parse(style: style)
        position = close + marker.count
        return runs
    }

    /// Where `marker` closes: after a non-space, not inside a code span.
    func closingIndex(of marker: [Character], from start: Int) -> Int? {
        var i = start
        while i + marker.count <= characters.count {
            if characters[i] == "`" {
                let ticks = characters[i...].prefix { $0 == "`" }.count
                var j = i + ticks
                while j < characters.count && characters[j...].prefix(while: { $0 == "`" }).count != ticks { j += 1 }
                i = j < characters.count ? j + ticks : i + ticks
                continue
            }
            if Array(characters[i..<i + marker.count]) == marker, i > start, !characters[i - 1].isWhitespace {
                let after = i + marker.count
                let single = marker.count == 1
                if !single || after >= characters.count || characters[after] != marker[0] {
                    if marker.first != "_" || after >= characters.count || !(characters[after].isLetter || characters[after].isNumber) { return i }
                }
            }
            i += 1
        }
        return nil
    }

    /// `[text](url)`.
    mutating func bracketLink(style: ChatInlineRun.Style) -> [ChatInlineRun]? {
        guard let close = characters[(position + 1)...].firstIndex(of: "]"), close + 1 < characters.count, characters[close + 1] == "(",
            let end = characters[(close + 2)...].firstIndex(of: ")")
        else { return nil }
        let url = String(characters[(close + 2)..<end]).trimmingCharacters(in: .whitespaces)
        guard !url.isEmpty, !url.contains(" ") else { return nil }
        var inner = ChatInlineParser(Array(characters[(position + 1)..<close]))
        let runs = inner.parse(style: style).map { ChatInlineRun($0.text, style: $0.style, link: url) }
        position = end + 1
        return runs
    }

    /// `<https://…>`.
    mutating func angleLink() -> String? {
        guard let close = characters[(position + 1)...].firstIndex(of: ">") else { return nil }
        let url = String(characters[(position + 1)..<close])
        guard url.hasPrefix("http://") || url.hasPrefix("https://"), !url.contains(" ") else { return nil }
        position = close + 1
        return url
    }

    /// A bare `http://` or `https://` address, without trailing punctuation.
    mutating func bareLink() -> String? {
        guard matches(Array("https://")) || matches(Array("http://")) else { return nil }
        var end = position
        while end < characters.count, !characters[end].isWhitespace, characters[end] != "<", characters[end] != ">" { end += 1 }
        while end > position, ".,;:!?)]'\"*_`".contains(characters[end - 1]) { end -= 1 }
        let url = String(characters[position..<end])
        guard url.count > 8 else { return nil }
        position = end
        return url
    }
}
