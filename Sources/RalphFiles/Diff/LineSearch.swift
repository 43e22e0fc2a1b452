/// Finding a block of a patch's lines (context and removed lines) in a file's lines, exactly first and then with more
/// tolerance for whitespace, the way patch tools locate hunks that were written against a slightly different file.
enum LineSearch {
    /// How two lines may differ and still match.
    enum Tolerance: CaseIterable {
        /// Byte for byte.
        case exact
        /// Trailing spaces, tabs and carriage returns ignored.
        case trailingSpace
        /// Leading and trailing spaces, tabs and carriage returns ignored.
        case surroundingSpace

        func matches(_ a: String, _ b: String) -> Bool {
            switch self {
            case .exact: TextLines.same(a, b)
            case .trailingSpace: TextLines.sameIgnoringTrailingSpace(a, b)
            case .surroundingSpace: TextLines.sameIgnoringSurroundingSpace(a, b)
            }
        }
    }

    /// Whether `pattern` is at `start` of `lines`.
    static func matches(_ pattern: [String], in lines: [String], at start: Int, _ tolerance: Tolerance) -> Bool {
        guard start >= 0, start + pattern.count <= lines.count else { return false }
        for (offset, line) in pattern.enumerated() where !tolerance.matches(lines[start + offset], line) { return false }
        return true
    }

    /// The first place at or after `start` where `pattern` is, trying each tolerance in turn over the whole range before
    /// the next; with `atEnd`, the place that ends the file is tried first.
    static func first(_ pattern: [String], in lines: [String], from start: Int, atEnd: Bool = false, tolerances: [Tolerance]) -> Int? {
        guard pattern.count <= lines.count else { return nil }
        if pattern.isEmpty { return min(start, lines.count) }
        let last = lines.count - pattern.count
        for tolerance in tolerances {
            if atEnd, last >= start, matches(pattern, in: lines, at: last, tolerance) { return last }
            var index = start
            while index <= last {
                if matches(pattern, in: lines, at: index, tolerance) { return index }
                index += 1
            }
        }
        return nil
    }

    /// The place nearest to `expected`, between `lower` and the end, where `pattern` is, trying each tolerance in turn.
    static func nearest(_ pattern: [String], in lines: [String], expected: Int, lower: Int, tolerances: [Tolerance]) -> Int? {
        let last = lines.count - pattern.count
        guard last >= lower else { return nil }
        let expected = min(max(expected, lower), last)
        for tolerance in tolerances {
            var distance = 0
            while expected - distance >= lower || expected + distance <= last {
                if expected + distance <= last, matches(pattern, in: lines, at: expected + distance, tolerance) { return expected + distance }
                if distance > 0, expected - distance >= lower, matches(pattern, in: lines, at: expected - distance, tolerance) {
                    return expected - distance
                }
                distance += 1
            }
        }
        return nil
    }
}
