extension String {
    /// Without leading and trailing spaces, tabs and carriage returns.
    public func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
        return String(s)
    }

    /// Without trailing spaces, tabs and carriage returns.
    public func trimmingTrailingWhitespace() -> String {
        var s = Substring(self)
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
        return String(s)
    }

    /// `\n` → newline, `\\` → backslash; any other backslash stays as written. One level of `\\n` therefore survives
    /// as `\n` for a script nested in an `agent` prompt.
    public func unescaped() -> String {
        guard contains("\\") else { return self }
        var out = ""
        var iterator = makeIterator()
        while let c = iterator.next() {
            guard c == "\\" else {
                out.append(c)
                continue
            }
            switch iterator.next() {
            case "n"?: out.append("\n")
            case "\\"?: out.append("\\")
            case let other?: out.append("\\"); out.append(other)
            case nil: out.append("\\")
            }
        }
        return out
    }

    /// Word-sized pieces, each a word with the whitespace after it; joined they are the string again (a text is
    /// streamed so).
    public func words() -> [String] {
        var pieces: [String] = []
        var current = ""
        var inSpace = false
        for c in self {
            if c.isWhitespace {
                inSpace = true
            } else if inSpace {
                pieces.append(current)
                current = ""
                inSpace = false
            }
            current.append(c)
        }
        if !current.isEmpty || pieces.isEmpty { pieces.append(current) }
        return pieces
    }

    /// Pieces of at most 16 characters, and at least two for a string of two or more (as the real APIs stream a
    /// tool's input).
    public func pieces() -> [String] {
        let characters = Array(self)
        let size = max(1, min(16, characters.count / 2))
        return stride(from: 0, to: characters.count, by: size).map { String(characters[$0..<min($0 + size, characters.count)]) }
    }
}
