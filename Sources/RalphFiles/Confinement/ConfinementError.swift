#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file under a workspace root was not opened. Paths in the cases are relative to the root (`.` for the root
/// itself), so a message never reveals where a refused link points.
public enum ConfinementError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The path names a place outside the root: an absolute path elsewhere, or `..` above the root.
    case outsideRoot(String)
    /// A symbolic link on the way leads out of the root (or is absolute and names a place outside it).
    case symbolicLinkOutside(String)
    /// A symbolic link where none is accepted (a file opened with ``RootDirectory/Links/refused``, or a lock sidecar).
    case symbolicLink(String)
    /// More than ``RootDirectory/maxLinks`` symbolic links, or a loop of them.
    case tooManyLinks(String)
    /// Nothing there.
    case notFound(String)
    /// There, but not a regular file (a directory, a FIFO, a device…).
    case notRegularFile(String)
    /// A component that must be a directory is not one.
    case notDirectory(String)
    /// Larger than the caller's limit.
    case tooLarge(String, limit: Int)
    /// Any other failure of a system call, with its `errno`.
    case system(String, operation: String, errno: Int32)

    /// The root-relative path the error is about.
    public var path: String {
        switch self {
        case .outsideRoot(let p), .symbolicLinkOutside(let p), .symbolicLink(let p), .tooManyLinks(let p), .notFound(let p),
            .notRegularFile(let p), .notDirectory(let p), .tooLarge(let p, _), .system(let p, _, _):
            p
        }
    }

    /// True when the request itself is at fault (a path or a link that is refused), as opposed to a missing file or an
    /// I/O failure: the server answers these with `400 invalid_path:`.
    public var isRefusal: Bool {
        switch self {
        case .outsideRoot, .symbolicLinkOutside, .symbolicLink, .tooManyLinks, .notRegularFile, .notDirectory: true
        case .notFound, .tooLarge, .system: false
        }
    }

    public var description: String {
        switch self {
        case .outsideRoot(let p): "'\(Self.shown(p))' is outside the workspace root"
        case .symbolicLinkOutside(let p): "'\(Self.shown(p))' is a symbolic link out of the workspace root"
        case .symbolicLink(let p): "'\(Self.shown(p))' is a symbolic link"
        case .tooManyLinks(let p): "'\(Self.shown(p))' goes through too many symbolic links"
        case .notFound(let p): "'\(Self.shown(p))' does not exist"
        case .notRegularFile(let p): "'\(Self.shown(p))' is not a regular file"
        case .notDirectory(let p): "'\(Self.shown(p))' is not a directory"
        case .tooLarge(let p, let limit): "'\(Self.shown(p))' is larger than \(limit) bytes"
        case .system(let p, let operation, let code): "cannot \(operation) '\(Self.shown(p))': \(String(cString: strerror(code)))"
        }
    }

    static func shown(_ path: String) -> String { String(path.prefix(200)) }

    /// The error for a failed system call on `path`.
    static func from(errno code: Int32, path: String, operation: String) -> ConfinementError {
        switch code {
        case ENOENT: .notFound(path)
        case ENOTDIR: .notDirectory(path)
        case ELOOP: .symbolicLink(path)
        case EXDEV: .outsideRoot(path)
        default: .system(path, operation: operation, errno: code)
        }
    }
}
