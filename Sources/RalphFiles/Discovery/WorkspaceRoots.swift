/// The configured workspace roots, and the one place where a path from a request is turned into a path on disk.
///
/// A path is accepted only if, after resolving `.`/`..` *and* symbolic links, it is one of the roots or lies inside
/// one. The lexical check comes first, so a path that points outside is refused without revealing whether it
/// exists. That answer names a place; the files in it are then opened through ``directory(containing:)``, the root's
/// ``RootDirectory``, which confines the open itself (what is checked here may change before it is opened).
public struct WorkspaceRoots: Sendable, Equatable {
    /// Canonical absolute paths.
    public let paths: [String]
    /// The roots held open, in the order of ``paths``.
    public let directories: [RootDirectory]

    /// Opens each root (canonical absolute paths) as a ``RootDirectory`` resolving as `resolution` says.
    public init(_ canonicalPaths: [String], resolution: RootDirectory.Resolution = .automatic) {
        self.paths = canonicalPaths
        self.directories = canonicalPaths.map { RootDirectory(path: $0, resolution: resolution) }
    }

    public static func == (lhs: WorkspaceRoots, rhs: WorkspaceRoots) -> Bool { lhs.paths == rhs.paths }

    /// The open root that `path` (absolute, lexically normalised) lies in, as ``root(containing:)`` chooses it.
    public func directory(containing path: String) -> RootDirectory? {
        guard let root = root(containing: path), let index = paths.firstIndex(of: root) else { return nil }
        return directories[index]
    }

    public enum PathError: Error, Equatable, CustomStringConvertible {
        case empty
        case invalidCharacters(String)
        case tooLong
        /// Resolves outside every root (lexically or through a symbolic link).
        case outsideRoots(String)
        case notFound(String)
        case wrongKind(String, expected: String)
        /// There and allowed, but it could not be read (too large, or an I/O error).
        case unreadable(String, reason: String)

        public var description: String {
            switch self {
            case .empty: "path is empty"
            case .invalidCharacters(let path): "path '\(path.prefix(100))' contains a NUL or control character"
            case .tooLong: "path is too long"
            case .outsideRoots(let path): "'\(path.prefix(200))' is outside the workspace roots"
            case .notFound(let path): "'\(path.prefix(200))' does not exist"
            case .wrongKind(let path, let expected): "'\(path.prefix(200))' is not \(expected)"
            case .unreadable(let path, let reason): "'\(path.prefix(200))' cannot be read: \(reason)"
            }
        }

        /// The error for a request's `path` whose open under its root failed: a link out of the root reads as being
        /// outside the roots, which is where it leads.
        public init(_ error: ConfinementError, path: String) {
            switch error {
            case .outsideRoot, .symbolicLinkOutside, .symbolicLink, .tooManyLinks: self = .outsideRoots(path)
            case .notFound, .notDirectory: self = .notFound(path)
            case .notRegularFile: self = .wrongKind(path, expected: "a file")
            case .tooLarge(_, let limit): self = .unreadable(path, reason: "larger than \(limit) bytes")
            case .system: self = .unreadable(path, reason: error.description)
            }
        }
    }

    public enum Kind: Sendable {
        case file
        case directory
    }

    /// The root containing `canonicalPath`, if any.
    public func root(containing canonicalPath: String) -> String? {
        paths.first { canonicalPath == $0 || canonicalPath.hasPrefix($0 == "/" ? "/" : $0 + "/") }
    }

    /// Resolves `path` (absolute, or relative to `base`) to an existing file or directory inside the roots.
    public func resolve(_ path: String, relativeTo base: String, kind: Kind) -> Result<String, PathError> {
        if path.isEmpty { return .failure(.empty) }
        if path.utf8.count > 4096 { return .failure(.tooLong) }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return .failure(.invalidCharacters(path)) }
        let lexical = FileSystem.join(base, path)
        guard root(containing: lexical) != nil else { return .failure(.outsideRoots(path)) }
        guard let real = FileSystem.realPath(lexical) else { return .failure(.notFound(path)) }
        guard root(containing: real) != nil else { return .failure(.outsideRoots(path)) }
        guard let status = FileSystem.status(real) else { return .failure(.notFound(path)) }
        switch kind {
        case .file where !status.isRegularFile: return .failure(.wrongKind(path, expected: "a file"))
        case .directory where !status.isDirectory: return .failure(.wrongKind(path, expected: "a directory"))
        default: return .success(real)
        }
    }
}
