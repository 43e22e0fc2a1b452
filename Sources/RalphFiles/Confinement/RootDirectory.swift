import CFileSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A workspace root held open as a directory descriptor: every file the server opens under a root is opened relative
/// to it, so that no name on the way — a fixed one like `.ralph/agent/memories.md` or one from a request — can lead
/// out of the root, whatever is on disk and whatever changes on disk meanwhile. There is no "check, then open by name":
/// the open itself is confined, and reads and writes then go through the descriptor it returned.
///
/// ```swift
/// let root = RootDirectory(path: "/home/me/code")            // canonical, opened once
/// let text = try root.readFile("/home/me/code/app/.ralph/agent/memories.md", limit: 1 << 20)
/// ```
///
/// **How.** Where the kernel has `openat2(2)` (Linux ≥ 5.6), a path is opened with `RESOLVE_BENEATH` (no component
/// may resolve above the root: `..` past it, or a symbolic link out of it, fails with `EXDEV`; absolute links always
/// do) and `RESOLVE_NO_MAGICLINKS` (no `/proc/<pid>/fd/…`-style links, which would jump anywhere). Elsewhere, when
/// `openat2` answers `ENOSYS`, and whenever it refuses a path (`EXDEV`, `ELOOP`, `EAGAIN`), the path is walked one
/// component at a time instead: each directory opened with `openat(…, O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC)` relative
/// to the one before, each symbolic link read with `readlinkat` and followed by this code (never by the kernel), `..`
/// taken from the walk's own stack of open directories (so it can never rise above the root), and the last component
/// opened with `O_NOFOLLOW`. The walk is the authority: it gives the same answers as `openat2`, accepts the in-root
/// absolute links that `openat2` cannot, and names the component at fault in its error.
///
/// **Symbolic links inside the root** are followed when they stay inside it (``Links/withinRoot``, the default), and
/// refused when they leave it. ralph itself makes such links: a worktree loop's `.ralph/agent/memories.md`,
/// `.ralph/specs` and `.ralph/tasks` are *absolute* links to the main repository's (`<repo>/.worktrees/<name>/…` →
/// `<repo>/.ralph/…`), so refusing every link (`RESOLVE_NO_SYMLINKS`) would break shared memories in worktrees. An
/// absolute link is accepted when it names a path under this root's canonical path, and is then walked from the root
/// descriptor like any other path. Files ralph never links — the events files a run appends to, lock sidecars — are
/// opened with ``Links/refused`` (`RESOLVE_NO_SYMLINKS`, or `O_NOFOLLOW` on every component), so a link there is an
/// error, not a redirection.
///
/// Blocking, like every file operation: call it from a thread pool or the catalog's thread.
public final class RootDirectory: Sendable {
    /// How paths are resolved.
    public enum Resolution: Sendable {
        /// `openat2` with `RESOLVE_BENEATH` where the kernel has it, else the component walk.
        case automatic
        /// Always the component walk (what a kernel without `openat2` gets); for tests.
        case componentWalk
    }

    /// Which symbolic links a path may go through.
    public enum Links: Sendable {
        /// Links whose target stays inside the root are followed; a link out of it is refused.
        case withinRoot
        /// No symbolic link anywhere in the path.
        case refused
    }

    /// The most symbolic links one path may go through (the kernel's own limit).
    public static let maxLinks = 40

    /// The canonical absolute path the root was opened at.
    public let path: String
    /// How this root resolves paths.
    public let resolution: Resolution
    /// The root's directory descriptor, or -1 when it could not be opened (``openError`` says why).
    let descriptor: Int32
    /// `errno` of the failed open of the root, or 0.
    let openError: Int32

    /// Opens the root at `path` (a canonical absolute path; the configuration resolved it at startup). A root that
    /// cannot be opened refuses every operation with the reason.
    public init(path: String, resolution: Resolution = .automatic) {
        self.path = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        self.resolution = resolution
        let fd = open(path, Self.directoryFlags)
        self.descriptor = fd
        self.openError = fd < 0 ? errno : 0
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// `O_PATH` where the platform has it (Linux), else 0.
    static let pathFlag: Int32 = rm_o_path()

    /// Flags for a directory that is only looked through (never read): `O_PATH` where Linux has it, so that a
    /// directory the server may search but not list still works as a step of a path.
    static let directoryFlags: Int32 = (pathFlag != 0 ? pathFlag : O_RDONLY) | O_DIRECTORY | O_CLOEXEC

    /// Whether this kernel has `openat2`: probed once, on the file system root.
    static let kernelHasOpenat2: Bool = {
        let fd = rm_openat2(AT_FDCWD, "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }()

    /// Whether this root resolves with `openat2` (false when forced to walk, or where the kernel lacks it).
    public var usesOpenat2: Bool { resolution == .automatic && Self.kernelHasOpenat2 }

    // MARK: - Paths

    /// `path` as components relative to the root: an absolute path must be the root or lie under it (lexically — the
    /// open decides the rest); a relative path is taken from the root. `.` and empty components are dropped; `..` is
    /// kept, for the open to resolve against what is really on disk.
    public func components(of path: String) throws(ConfinementError) -> [String] {
        if path.utf8.contains(0) { throw .outsideRoot(String(path.prefix(200))) }
        var relative = Substring(path)
        if path.hasPrefix("/") {
            if self.path == "/" {
                relative = relative.dropFirst()
            } else if path == self.path {
                relative = ""
            } else if path.hasPrefix(self.path + "/") {
                relative = relative.dropFirst(self.path.count + 1)
            } else {
                throw .outsideRoot(String(path.prefix(200)))
            }
        }
        return relative.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }.map(String.init)
    }

    /// The root-relative spelling of components, for messages (`.` for the root).
    static func shown(_ components: some Collection<String>) -> String {
        components.isEmpty ? "." : components.joined(separator: "/")
    }

    // MARK: - Opening

    /// Opens `components` (relative to the root) with the `open(2)` `flags` and `mode`, following symbolic links as
    /// `links` allows; `O_NOFOLLOW` in `flags` refuses a link as the last component. Returns a descriptor the caller
    /// closes.
    func openDescriptor(_ components: [String], flags: Int32, mode: mode_t = 0o644, links: Links) throws(ConfinementError) -> Int32 {
        guard descriptor >= 0 else { throw .system(".", operation: "open the workspace root", errno: openError) }
        if usesOpenat2 {
            var resolve = UInt64(RM_RESOLVE_BENEATH | RM_RESOLVE_NO_MAGICLINKS)
            if links == .refused { resolve |= UInt64(RM_RESOLVE_NO_SYMLINKS) }
            let relative = components.isEmpty ? "." : components.joined(separator: "/")
            var attempts = 0
            while true {
                let fd = rm_openat2(descriptor, relative, flags | O_CLOEXEC, UInt32(mode), resolve)
                if fd >= 0 { return fd }
                let code = errno
                attempts += 1
                if code == EINTR || (code == EAGAIN && attempts < 4) { continue }
                switch code {
                case EXDEV, ELOOP, EAGAIN, ENOSYS:
                    // Refused, or raced: the walk finds out which component is at fault, and accepts an absolute link
                    // that stays inside the root (openat2 refuses every absolute link).
                    return try walkDescriptor(components, flags: flags, mode: mode, links: links)
                default:
                    throw .from(errno: code, path: Self.shown(components), operation: "open")
                }
            }
        }
        return try walkDescriptor(components, flags: flags, mode: mode, links: links)
    }

    /// Opens `path` (absolute under the root, or root-relative) as a directory to look through, for `*at` calls.
    func openDirectory(_ components: [String], links: Links = .withinRoot) throws(ConfinementError) -> Int32 {
        try openDescriptor(components, flags: Self.directoryFlags, links: links)
    }
}
