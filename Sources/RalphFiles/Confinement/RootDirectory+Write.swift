import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RootDirectory {
    /// Creates the directory `path` and any missing parents, each with `mkdirat` in its parent's descriptor. A
    /// component that exists must be a directory reached as `links` allows.
    public func makeDirectories(_ path: String, links: Links = .withinRoot) throws(ConfinementError) {
        let components = try components(of: path)
        guard !components.isEmpty else { return }
        for count in 1...components.count {
            let prefix = Array(components.prefix(count))
            do throws(ConfinementError) {
                close(try openDirectory(prefix, links: links))
                continue
            } catch .notFound {}
            let parent = try openDirectory(Array(prefix.dropLast()), links: links)
            defer { close(parent) }
            if mkdirat(parent, prefix[prefix.count - 1], 0o755) != 0, errno != EEXIST {
                throw .from(errno: errno, path: Self.shown(prefix), operation: "create the directory")
            }
        }
    }

    /// Replaces the file `path` with `data` atomically: a temporary file created (`O_EXCL | O_NOFOLLOW`) in the same
    /// directory's descriptor, written, fsynced, then `renameat` over the name, keeping the old file's permissions.
    /// Readers see the old or the new content, never a mix. Missing parent directories are created. When `path` is a
    /// symbolic link inside the root (a worktree's `memories.md`), its target is replaced and the link kept. Returns
    /// the new file's status.
    @discardableResult
    public func writeAtomically(_ data: Data, to path: String, mode: mode_t = 0o644) throws(ConfinementError) -> FileSystem.Status {
        let components = try components(of: path)
        guard !components.isEmpty else { throw .notRegularFile(".") }
        if components.count > 1 { try makeDirectories(Self.shown(components.dropLast())) }
        let end = try writeTarget(components)
        defer { close(end.parent) }
        guard let name = end.name else { throw .notRegularFile(end.shown) }
        var existing = stat()
        let permissions: mode_t
        if fstatat(end.parent, name, &existing, AT_SYMLINK_NOFOLLOW) == 0 {
            guard UInt32(existing.st_mode) & UInt32(S_IFMT) == UInt32(S_IFREG) else { throw .notRegularFile(end.shown) }
            permissions = mode_t(UInt32(existing.st_mode) & 0o7777)
        } else {
            permissions = mode
        }
        let temp = ".\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = openat(end.parent, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw .from(errno: errno, path: end.shown, operation: "create a temporary file for") }
        var failure: Int32 = 0
        data.withUnsafeBytes { raw in
            var written = 0
            while written < raw.count {
                let n = write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                written += n
            }
        }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        fchmod(fd, permissions)
        let status = FileSystem.status(fd: fd)
        close(fd)
        if failure == 0, renameat(end.parent, temp, end.parent, name) != 0 { failure = errno }
        guard failure == 0, let status else {
            unlinkat(end.parent, temp, 0)
            throw .system(end.shown, operation: "write", errno: failure == 0 ? EIO : failure)
        }
        return status
    }

    /// The directory and name an atomic write replaces: the path itself, or — when it is a link that stays in the
    /// root — the file the link leads to.
    func writeTarget(_ components: [String]) throws(ConfinementError) -> WalkEnd {
        if usesOpenat2 {
            let parent = try openDirectory(Array(components.dropLast()))
            let name = components[components.count - 1]
            switch name == ".." ? .failed(EINVAL) : Self.readLink(at: parent, name) {
            case .notLink, .missing: return WalkEnd(parent: parent, name: name, shown: Self.shown(components))
            case .link, .failed: close(parent)
            }
        }
        return try walk(components, followLast: true, links: .withinRoot)
    }

    /// Appends `bytes` to the existing file `path` (or creates it, with `create`) with one `O_APPEND` write; returns the
    /// offset where they start. The file and every directory on the way are opened as `links` allows — run files are
    /// never links, so the events writer passes ``Links/refused``.
    @discardableResult
    public func append(_ bytes: [UInt8], to path: String, create: Bool = false, links: Links = .refused) throws(ConfinementError) -> Int {
        let components = try components(of: path)
        let fd = try openDescriptor(components, flags: O_WRONLY | O_APPEND | O_NONBLOCK | (create ? O_CREAT : 0), mode: 0o644, links: links)
        defer { close(fd) }
        let shown = Self.shown(components)
        guard FileSystem.status(fd: fd)?.isRegularFile == true else { throw .notRegularFile(shown) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system(shown, operation: "append to", errno: errno)
            }
            written += n
        }
        // O_APPEND moved the file offset to the end of this write.
        return Int(lseek(fd, 0, SEEK_CUR)) - bytes.count
    }
}
