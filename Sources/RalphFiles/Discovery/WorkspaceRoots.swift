/// The configured workspace roots, and the one place where a path from a request is turned into a path on disk.
///
/// A path is accepted only if, after resolving `.`/`..` *and* symbolic links, it is one of the roots or lies inside
/// one. The lexical check comes first, so a path that points outside is refused without revealing whether it
/// exists.
public struct WorkspaceRoots: Sendable, Equatable {
    /// Canonical absolute paths.
    public let paths: [String]

    public init(_ canonicalPaths: [String]) {
        self.paths = canonicalPaths
    }

    public enum PathError: Error, Equatable, CustomStringConvertible {
        case empty
        case invalidCharacters(String)
        case tooLong
        /// Resolves outside every root (lexically or through a symbolic link).
        case outsideRoots(String)
        case notFound(String)
        case wrongKind(String, expected: String)

        public var description: String {
            switch self {
            case .empty: "path is empty"
            case .invalidCharacters(let path): "path '\(path.prefix(100))' contains a NUL or control character"
            case .tooLong: "path is too long"
            case .outsideRoots(let path): "'\(path.prefix(200))' is outside the workspace roots"
            case .notFound(let path): "'\(path.prefix(200))' does not exist"
            case .wrongKind(let path, let expected): "'\(path.prefix(200))' is not \(expected)"
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
