/// Why a proposed edit has no diff. Its ``description`` is what ``FileDiff/error`` says to the person approving.
public enum DiffError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path resolves outside every workspace root (an absolute path elsewhere, `..` above a root, or a symbolic
    /// link leading out of one). Nothing was read.
    case outsideRoots(String)
    /// The path is empty, or holds a NUL or control character.
    case invalidPath(String)
    /// The file is larger than the preview reads.
    case tooLarge(String, limit: Int)
    /// There is something at the path that is not a regular file, or it could not be read.
    case unreadable(String, reason: String)
    /// The tool input lacks a field it needs (or it has the wrong type).
    case missingField(String)
    /// An edit needs the file, and it does not exist.
    case fileMissing(String)
    /// An edit would create the file (an empty `old_string`), and it already exists with content.
    case fileExists(String)
    /// The text an edit replaces is not in the file as it is now. `edit` is the 1-based edit of a MultiEdit.
    case textNotFound(edit: Int?)
    /// The text an edit replaces occurs more than once and the edit does not say to replace every occurrence.
    case textNotUnique(edit: Int?, occurrences: Int)
    /// `old_string` and `new_string` are the same.
    case noChange(edit: Int?)
    /// A patch hunk's context and removed lines are not in the file as it is now. `hunk` is 1-based.
    case hunkNotFound(hunk: Int, detail: String)
    /// A patch cannot be parsed; `line` is 1-based.
    case malformedPatch(String, line: Int?)

    public var description: String {
        switch self {
        case .outsideRoots(let path): "'\(Self.shown(path))' is outside the workspace roots"
        case .invalidPath(let path): "'\(Self.shown(path))' is not a valid path"
        case .tooLarge(let path, let limit): "'\(Self.shown(path))' is larger than \(Self.size(limit)): no diff is shown"
        case .unreadable(let path, let reason): "'\(Self.shown(path))' cannot be read: \(reason)"
        case .missingField(let field): "the tool input has no \(field)"
        case .fileMissing(let path): "'\(Self.shown(path))' does not exist"
        case .fileExists(let path): "'\(Self.shown(path))' already exists, and the edit would create it (old_string is empty)"
        case .textNotFound(let edit): "\(Self.prefix(edit))the text to replace is not in the file as it is now"
        case .textNotUnique(let edit, let count):
            "\(Self.prefix(edit))the text to replace occurs \(count) times in the file, and replace_all is not set"
        case .noChange(let edit): "\(Self.prefix(edit))old_string and new_string are the same"
        case .hunkNotFound(let hunk, let detail): "hunk \(hunk) does not match the file as it is now: \(detail)"
        case .malformedPatch(let reason, let line): "the patch cannot be read\(line.map { " (line \($0))" } ?? ""): \(reason)"
        }
    }

    private static func prefix(_ edit: Int?) -> String { edit.map { "edit \($0): " } ?? "" }

    static func shown(_ path: String) -> String { path.count > 200 ? String(path.prefix(200)) + "…" : path }

    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : bytes >= 1024 && bytes % 1024 == 0 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
    }
}
