import Foundation

/// A patch in Codex's `apply_patch` format, read into its file operations (several files per patch):
///
/// ```text
/// *** Begin Patch
/// *** Add File: docs/new.md          (then the file's lines, each prefixed with +)
/// +hello
/// *** Delete File: old.txt
/// *** Update File: src/app.py
/// *** Move to: src/main.py            (optional)
/// @@ def greet():                    (a chunk; the text after @@ is a line to find first, optional)
///  context
/// -removed
/// +added
/// *** End of File                     (optional: the chunk ends the file)
/// *** End Patch
/// ```
///
/// As Codex reads it: the marker lines may carry surrounding whitespace, a patch wrapped in a `<<'EOF'` heredoc is
/// unwrapped, the first chunk of an update may omit its `@@`, an empty line in a chunk is an empty context line, and
/// blank lines between chunks are skipped. The chunks are applied by `CodexPatch+Apply`.
public struct CodexPatch: Sendable, Hashable {
    /// One change of an update: the lines it expects (context and removed) and the lines it leaves (context and added).
    public struct Chunk: Sendable, Hashable {
        /// The text after `@@`: a line found first, the chunk's lines then being looked for after it.
        public var context: String?
        public var oldLines: [String]
        public var newLines: [String]
        /// `*** End of File` closes the chunk: its lines end the file.
        public var isEndOfFile: Bool

        public init(context: String? = nil, oldLines: [String], newLines: [String], isEndOfFile: Bool = false) {
            self.context = context
            self.oldLines = oldLines
            self.newLines = newLines
            self.isEndOfFile = isEndOfFile
        }
    }

    /// One file operation.
    public enum Operation: Sendable, Hashable {
        /// Creates the file with `content` (its `+` lines, each ending with a newline).
        case add(path: String, content: String)
        /// Removes the file.
        case delete(path: String)
        /// Changes the file by `chunks`, and renames it to `moveTo` when there is one.
        case update(path: String, moveTo: String?, chunks: [Chunk])

        /// The file the operation names first.
        public var path: String {
            switch self {
            case .add(let path, _), .delete(let path), .update(let path, _, _): path
            }
        }
    }

    static let begin = "*** Begin Patch"
    static let end = "*** End Patch"
    static let endOfFile = "*** End of File"

    public var operations: [Operation]

    /// Reads a patch; throws, naming the line, when it does not follow the format.
    public init(_ text: String) throws(DiffError) {
        var lines = TextLines(text.trimmingCharacters(in: .whitespacesAndNewlines)).lines
        if let first = lines.first?.trimmingCharacters(in: .whitespaces), ["<<EOF", "<<'EOF'", "<<\"EOF\""].contains(first),
            lines.count >= 2, lines[lines.count - 1].trimmingCharacters(in: .whitespaces).hasSuffix("EOF")
        {
            lines = Array(lines.dropFirst().dropLast())
        }
        guard lines.first.map(Self.marker) == Self.begin else { throw .malformedPatch("the first line is not '\(Self.begin)'", line: 1) }
        guard lines.count >= 2, lines.last.map(Self.marker) == Self.end else {
            throw .malformedPatch("the last line is not '\(Self.end)'", line: lines.count)
        }
        var reader = Reader(lines: lines, index: 1, end: lines.count - 1)
        var operations: [Operation] = []
        while reader.index < reader.end {
            operations.append(try reader.operation())
        }
        self.operations = operations
    }

    /// The patch inside `text` — a tool input or a shell command running `apply_patch` — from its `*** Begin Patch` line
    /// to its last `*** End Patch` line; nil when there is none.
    public static func extract(from text: String) -> String? {
        guard let start = text.range(of: begin), let stop = text.range(of: end, options: .backwards), start.lowerBound < stop.lowerBound else {
            return nil
        }
        return String(text[start.lowerBound..<stop.upperBound])
    }

    static func marker(_ line: String) -> String { line.trimmingCharacters(in: .whitespaces) }

    /// Reads operations from the lines between the begin and end markers.
    private struct Reader {
        let lines: [String]
        var index: Int
        let end: Int

        mutating func operation() throws(DiffError) -> Operation {
            let line = marker(lines[index])
            index += 1
            if let path = line.value(after: "*** Add File: ") {
                var content = ""
                while index < end, lines[index].hasPrefix("+") {
                    content += lines[index].dropFirst() + "\n"
                    index += 1
                }
                return .add(path: path, content: content)
            }
            if let path = line.value(after: "*** Delete File: ") { return .delete(path: path) }
            guard let path = line.value(after: "*** Update File: ") else {
                throw .malformedPatch("'\(DiffError.shown(line))' is not an Add File, Delete File or Update File line", line: index)
            }
            var moveTo: String?
            if index < end, let destination = marker(lines[index]).value(after: "*** Move to: ") {
                moveTo = destination
                index += 1
            }
            var chunks: [Chunk] = []
            while index < end {
                if marker(lines[index]).isEmpty {
                    index += 1
                    continue
                }
                if lines[index].hasPrefix("***") { break }
                chunks.append(try chunk(first: chunks.isEmpty))
            }
            guard !chunks.isEmpty else { throw .malformedPatch("Update File: \(DiffError.shown(path)) has no change", line: index) }
            return .update(path: path, moveTo: moveTo, chunks: chunks)
        }

        /// Reads one chunk: its `@@` line (which the first chunk may omit), then its lines.
        mutating func chunk(first: Bool) throws(DiffError) -> Chunk {
            var chunk = Chunk(context: nil, oldLines: [], newLines: [], isEndOfFile: false)
            let header = lines[index]
            if marker(header) == "@@" {
                index += 1
            } else if header.hasPrefix("@@ ") {
                chunk.context = String(header.dropFirst(3))
                index += 1
            } else if !first {
                throw .malformedPatch("expected a chunk starting with @@, found '\(DiffError.shown(header))'", line: index + 1)
            }
            var count = 0
            while index < end {
                let line = lines[index]
                if marker(line) == endOfFile {
                    guard count > 0 else { break }
                    chunk.isEndOfFile = true
                    index += 1
                    break
                }
                switch line.utf8.first {
                case nil, UInt8(ascii: " "):
                    chunk.oldLines.append(String(line.dropFirst()))
                    chunk.newLines.append(String(line.dropFirst()))
                case UInt8(ascii: "-"): chunk.oldLines.append(String(line.dropFirst()))
                case UInt8(ascii: "+"): chunk.newLines.append(String(line.dropFirst()))
                default:
                    guard count > 0 else { throw .malformedPatch("'\(DiffError.shown(line))' is not a context, removed or added line", line: index + 1) }
                    return chunk
                }
                count += 1
                index += 1
            }
            guard count > 0 else { throw .malformedPatch("a chunk has no lines", line: index + 1) }
            return chunk
        }
    }
}

extension String {
    /// The rest of the string after `prefix`, when it starts with it and the rest is not empty.
    fileprivate func value(after prefix: String) -> String? {
        guard hasPrefix(prefix) else { return nil }
        let rest = dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        return rest.isEmpty ? nil : rest
    }
}
