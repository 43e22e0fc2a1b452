/// What a proposed (or applied) edit does to one file, as a unified diff against the file as it is on disk, so a person
/// sees exactly what they approve. An approval of a file tool carries one per file the call touches.
///
/// `diff` is what to show: `--- a/<path>` / `+++ b/<path>` headers (`/dev/null` for an added or deleted file), then
/// `@@ -l,n +l,n @@` hunks with three lines of context and `\ No newline at end of file` where a side ends without one.
/// It is empty when the edit changes nothing and when ``error`` says why there is no diff; for a binary file it is the
/// one line `Binary file <path> changed`.
public struct FileDiff: Codable, Hashable, Sendable {
    /// What happens to the file: an open set, so a client decoding a kind a newer server adds does not fail.
    public struct Kind: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// An existing file is changed in place.
        public static let update = Kind(rawValue: "update")
        /// The file does not exist yet and is created.
        public static let add = Kind(rawValue: "add")
        /// The file is removed.
        public static let delete = Kind(rawValue: "delete")
        /// The file is renamed to ``FileDiff/movePath`` (and possibly changed).
        public static let move = Kind(rawValue: "move")
    }

    /// The file as the tool named it (absolute, or relative to the conversation's working directory).
    public var path: String
    /// Where a ``Kind/move`` puts the file, as the tool named it.
    public var movePath: String?
    public var kind: Kind
    /// The unified diff text (see the type's documentation); empty when ``error`` is set.
    public var diff: String
    /// Lines added, over the whole diff (also when ``truncated``).
    public var added: Int
    /// Lines removed, over the whole diff (also when ``truncated``).
    public var removed: Int
    /// The file is not text (a NUL byte near its start, or invalid UTF-8): no lines are shown.
    public var binary: Bool
    /// The diff was too long to show whole: ``diff`` holds its first part.
    public var truncated: Bool
    /// How many diff lines were left out when ``truncated``.
    public var omittedLines: Int?
    /// Something to know about a diff that is shown, e.g. that the change was too large to compare line by line and is
    /// shown as the changed region removed and added whole.
    public var note: String?
    /// Why there is no diff: the path is outside the workspace roots, the text to replace is not in the file as it is
    /// now (or is not unique), a patch's context is not found, the file cannot be read or is too large…
    public var error: String?

    public init(
        path: String, movePath: String? = nil, kind: Kind, diff: String = "", added: Int = 0, removed: Int = 0, binary: Bool = false,
        truncated: Bool = false, omittedLines: Int? = nil, note: String? = nil, error: String? = nil
    ) {
        self.path = path
        self.movePath = movePath
        self.kind = kind
        self.diff = diff
        self.added = added
        self.removed = removed
        self.binary = binary
        self.truncated = truncated
        self.omittedLines = omittedLines
        self.note = note
        self.error = error
    }

    enum CodingKeys: String, CodingKey {
        case path, kind, diff, added, removed, binary, truncated, note, error
        case movePath = "move_path"
        case omittedLines = "omitted_lines"
    }
}
