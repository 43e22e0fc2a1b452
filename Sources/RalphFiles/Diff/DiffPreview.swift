import RalphAPI

/// Shows what a coding agent's file edit will change before a person approves it: the unified diff of the edit against
/// each file as it is on disk *now*, confined to the workspace roots.
///
/// Paths are taken as the tool names them: an absolute path must lie inside one of the roots, a relative one is taken
/// from the conversation's working directory. Files are read only through the root's ``RootDirectory`` (so neither
/// `..` nor a symbolic link leads out of it); a path outside every root gets a ``FileDiff`` with its ``FileDiff/error``
/// and nothing is read. A missing file is one the edit adds; a file with a NUL byte in its first 8 KiB or invalid UTF-8
/// is shown as binary; one larger than ``Limits/maxFileBytes`` has no diff.
///
/// ```swift
/// let preview = DiffPreview(roots: roots.directories, cwd: conversation.cwd)
/// let diffs = preview.preview(tool: "Edit", input: toolCall.input)       // [FileDiff]
/// let before = preview.changes(tool: "Edit", input: toolCall.input)      // keep `before` to show later what was applied:
/// let applied = preview.diff(path: p, before: change.before!, after: try preview.read(p).get())
/// ```
///
/// Blocking (it reads files): call it from a thread pool.
public struct DiffPreview: Sendable {
    /// What a preview reads and shows at most.
    public struct Limits: Sendable, Hashable {
        /// The largest file read (and the largest content shown); larger ones have no diff.
        public var maxFileBytes: Int
        /// How many leading bytes are looked at for a NUL byte, the sign of a binary file.
        public var binarySniffBytes: Int
        /// How the diff is rendered and cut.
        public var diff: UnifiedDiff.Limits

        public init(maxFileBytes: Int = 8 << 20, binarySniffBytes: Int = 8 * 1024, diff: UnifiedDiff.Limits = UnifiedDiff.Limits()) {
            self.maxFileBytes = maxFileBytes
            self.binarySniffBytes = binarySniffBytes
            self.diff = diff
        }
    }

    /// A file's content at one moment.
    public enum Snapshot: Sendable, Hashable {
        /// Nothing is there.
        case missing
        /// UTF-8 text.
        case text(String)
        /// Not text: a NUL byte near the start, or invalid UTF-8.
        case binary(byteCount: Int)
    }

    /// One file a tool call changes: its diff, and what it was diffed from and to, so the change that was really made
    /// can be shown later (the `before` snapshot against the file read again with ``read(_:)``).
    public struct Change: Sendable, Hashable {
        public var diff: FileDiff
        /// The file's absolute path, nil when the path was refused.
        public var absolutePath: String?
        /// Where a move puts the file, absolute.
        public var absoluteMovePath: String?
        /// The file as it was read for the preview, nil when it could not be.
        public var before: Snapshot?
        /// The file as the edit would leave it, nil when the edit cannot be applied.
        public var after: Snapshot?
    }

    /// The workspace roots a path must lie in.
    public let roots: [RootDirectory]
    /// The conversation's working directory, absolute: relative paths are taken from it.
    public let cwd: String
    public let limits: Limits

    public init(roots: [RootDirectory], cwd: String, limits: Limits = Limits()) {
        self.roots = roots
        self.cwd = FileSystem.normalize(cwd)
        self.limits = limits
    }

    public init(roots: WorkspaceRoots, cwd: String, limits: Limits = Limits()) {
        self.init(roots: roots.directories, cwd: cwd, limits: limits)
    }

    // MARK: - Reading

    /// The absolute path `path` names and the root it lies in, or why it is refused.
    public func locate(_ path: String) -> Result<(root: RootDirectory, path: String), DiffError> {
        if path.isEmpty || path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return .failure(.invalidPath(path)) }
        let absolute = FileSystem.join(cwd, path)
        let containing = roots.filter { absolute == $0.path || absolute.hasPrefix($0.path == "/" ? "/" : $0.path + "/") }
        guard let root = containing.max(by: { $0.path.count < $1.path.count }) else { return .failure(.outsideRoots(path)) }
        return .success((root, absolute))
    }

    /// The file `path` names as it is now, read through its root, or why it cannot be.
    public func read(_ path: String) -> Result<Snapshot, DiffError> {
        locate(path).flatMap { read($0.path, in: $0.root, named: path) }
    }

    func read(_ absolute: String, in root: RootDirectory, named path: String) -> Result<Snapshot, DiffError> {
        do throws(ConfinementError) {
            guard let content = try root.readFile(absolute, limit: limits.maxFileBytes, links: .withinRoot) else { return .success(.missing) }
            return .success(snapshot(content.bytes))
        } catch {
            switch error {
            case .outsideRoot, .symbolicLinkOutside, .symbolicLink: return .failure(.outsideRoots(path))
            case .tooLarge(_, let limit): return .failure(.tooLarge(path, limit: limit))
            case .notRegularFile: return .failure(.unreadable(path, reason: "it is not a regular file"))
            case .notDirectory: return .failure(.unreadable(path, reason: "a part of the path is not a directory"))
            case .notFound: return .success(.missing)
            case .tooManyLinks, .system: return .failure(.unreadable(path, reason: error.description))
            }
        }
    }

    /// The snapshot of a file's bytes: binary when a NUL byte is in the first bytes or the bytes are not UTF-8.
    func snapshot(_ bytes: [UInt8]) -> Snapshot {
        if bytes.prefix(limits.binarySniffBytes).contains(0) { return .binary(byteCount: bytes.count) }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .binary(byteCount: bytes.count) }
        return .text(text)
    }

    /// The snapshot of a text an edit would write.
    func snapshot(_ text: String) -> Snapshot {
        text.utf8.prefix(limits.binarySniffBytes).contains(0) ? .binary(byteCount: text.utf8.count) : .text(text)
    }

    // MARK: - Diffing

    /// The diff from `before` to `after` of the file `path` (moved to `movePath` when given): an add when `before` is
    /// missing, a delete when `after` is, binary when either is.
    public func diff(path: String, movePath: String? = nil, before: Snapshot, after: Snapshot) -> FileDiff {
        let kind: FileDiff.Kind = before == .missing ? .add : after == .missing ? .delete : movePath != nil ? .move : .update
        let oldLabel = before == .missing ? UnifiedDiff.devNull : "a/" + shown(path)
        let newLabel = after == .missing ? UnifiedDiff.devNull : "b/" + shown(movePath ?? path)
        var result = FileDiff(path: path, movePath: movePath, kind: kind)
        switch (before, after) {
        case (.binary, _), (_, .binary):
            result.binary = true
            result.diff = "Binary file \(shown(movePath ?? path)) changed\n"
        case (.missing, .missing):
            break
        default:
            if case .text(let text) = after, text.utf8.count > limits.maxFileBytes {
                result.error = DiffError.tooLarge(path, limit: limits.maxFileBytes).description
                return result
            }
            let unified = UnifiedDiff(old: lines(before), new: lines(after), oldLabel: oldLabel, newLabel: newLabel, limits: limits.diff)
            result.diff = unified.text.isEmpty && kind == .move ? "--- \(oldLabel)\n+++ \(newLabel)\n" : unified.text
            result.added = unified.added
            result.removed = unified.removed
            result.truncated = unified.truncated
            result.omittedLines = unified.truncated ? unified.omittedLines : nil
            if !unified.isMinimal {
                result.note = "too many changes to compare line by line: the changed lines are shown removed and added whole"
            }
        }
        return result
    }

    /// A diff that could not be made, saying why.
    func failure(path: String, movePath: String? = nil, kind: FileDiff.Kind, _ error: DiffError) -> FileDiff {
        FileDiff(path: path, movePath: movePath, kind: kind, error: error.description)
    }

    private func lines(_ snapshot: Snapshot) -> TextLines {
        if case .text(let text) = snapshot { return TextLines(text) }
        return TextLines(lines: [])
    }

    /// `path` as the diff headers show it: relative to the working directory when inside it, else absolute (without
    /// its leading `/`, as `a/<path>` is written).
    func shown(_ path: String) -> String {
        let absolute = FileSystem.join(cwd, path)
        let relative = FileSystem.relative(absolute, to: cwd)
        return relative.hasPrefix("/") ? String(relative.dropFirst()) : relative
    }
}
