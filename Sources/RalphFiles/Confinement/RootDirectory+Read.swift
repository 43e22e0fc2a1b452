import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RootDirectory {
    /// What a directory entry is, as the directory itself says (a link is a link, never what it points to).
    public enum EntryKind: Sendable, Equatable {
        /// A regular file.
        case file
        /// A directory.
        case directory
        /// A symbolic link (whatever it points to).
        case symbolicLink
        /// A FIFO, socket or device.
        case other
    }

    /// One entry of a listed directory.
    public struct Entry: Sendable, Equatable {
        /// The entry's name in its directory.
        public var name: String
        /// What the directory says the entry is.
        public var kind: EntryKind
    }

    /// A file read whole through its descriptor, with the `fstat` of that same descriptor.
    public struct FileContent: Sendable {
        /// The file's bytes.
        public var bytes: [UInt8]
        /// The status of the descriptor the bytes were read from.
        public var status: FileSystem.Status
        /// The bytes as UTF-8 text (invalid sequences repaired).
        public var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// The status of what `path` names (links followed as `links` allows), from `fstat` on a descriptor of it; nil when
    /// nothing is there.
    public func status(_ path: String, links: Links = .withinRoot) throws(ConfinementError) -> FileSystem.Status? {
        let components = try components(of: path)
        guard let fd = try openIfPresent(components, flags: Self.pathFlag != 0 ? Self.pathFlag : O_RDONLY | O_NONBLOCK, links: links) else { return nil }
        defer { close(fd) }
        guard let status = FileSystem.status(fd: fd) else { throw .system(Self.shown(components), operation: "stat", errno: errno) }
        return status
    }

    /// The status of the entry `path` itself (`lstat`: a link is reported as a link), looked up in its directory's
    /// descriptor; nil when nothing is there.
    public func entryStatus(_ path: String, links: Links = .withinRoot) throws(ConfinementError) -> FileSystem.Status? {
        let components = try components(of: path)
        guard let name = components.last, name != ".." else { return try status(path, links: links) }
        let parent: Int32
        do throws(ConfinementError) {
            parent = try openDirectory(Array(components.dropLast()), links: links)
        } catch .notFound {
            return nil
        }
        defer { close(parent) }
        var st = stat()
        guard fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return nil }
            throw .from(errno: errno, path: Self.shown(components), operation: "stat")
        }
        return FileSystem.Status(st)
    }

    /// Reads the regular file `path` whole (at most `limit` bytes) through one descriptor; nil when it does not exist.
    /// A FIFO or device is refused without blocking on it.
    public func readFile(_ path: String, limit: Int = 1 << 20, links: Links = .withinRoot) throws(ConfinementError) -> FileContent? {
        let components = try components(of: path)
        guard let fd = try openIfPresent(components, flags: O_RDONLY | O_NONBLOCK, links: links) else { return nil }
        defer { close(fd) }
        return try Self.read(fd, shown: Self.shown(components), limit: limit)
    }

    /// Reads a regular file whole from an open descriptor (from offset 0, whatever the descriptor's offset).
    static func read(_ fd: Int32, shown: String, limit: Int) throws(ConfinementError) -> FileContent {
        guard let status = FileSystem.status(fd: fd) else { throw .system(shown, operation: "stat", errno: errno) }
        guard status.isRegularFile else { throw .notRegularFile(shown) }
        if status.size > limit { throw .tooLarge(shown, limit: limit) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { FileSystem.pread(fd: fd, into: $0, offset: bytes.count) }
            if n < 0 { throw .system(shown, operation: "read", errno: errno) }
            if n == 0 { break }
            bytes += chunk[0..<n]
            if bytes.count > limit { throw .tooLarge(shown, limit: limit) }
            if n < chunk.count { break }
        }
        return FileContent(bytes: bytes, status: status)
    }

    /// The entries of the directory `path` (without `.` and `..`), read through its descriptor; nil when it does not
    /// exist. Kinds come from the directory itself (`d_type`, else `fstatat` with `AT_SYMLINK_NOFOLLOW` on the
    /// directory's descriptor), so a link is listed as a link.
    public func list(_ path: String, links: Links = .withinRoot) throws(ConfinementError) -> [Entry]? {
        let components = try components(of: path)
        guard let fd = try openIfPresent(components, flags: O_RDONLY | O_DIRECTORY, links: links) else { return nil }
        guard let dir = fdopendir(fd) else {
            let code = errno
            close(fd)
            throw .from(errno: code, path: Self.shown(components), operation: "list")
        }
        defer { closedir(dir) }
        let dirFD = dirfd(dir)
        var entries: [Entry] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            entries.append(Entry(name: name, kind: Self.kind(Int32(entry.pointee.d_type), name: name, in: dirFD)))
        }
        return entries
    }

    static func kind(_ type: Int32, name: String, in directory: Int32) -> EntryKind {
        switch type {
        case Int32(DT_REG): return .file
        case Int32(DT_DIR): return .directory
        case Int32(DT_LNK): return .symbolicLink
        case Int32(DT_UNKNOWN):
            var st = stat()
            guard fstatat(directory, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return .other }
            switch UInt32(st.st_mode) & UInt32(S_IFMT) {
            case UInt32(S_IFREG): return .file
            case UInt32(S_IFDIR): return .directory
            case UInt32(S_IFLNK): return .symbolicLink
            default: return .other
            }
        default: return .other
        }
    }

    /// The absolute path of the file an open descriptor refers to, as the kernel knows it now (`/proc/self/fd`), or
    /// nil where it cannot say. Used to check what kind of file was opened, never to open anything.
    static func currentPath(of fd: Int32) -> String? {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count)
        guard count > 0, count < buffer.count else { return nil }
        let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path.hasPrefix("/") && !path.hasSuffix(" (deleted)") ? path : nil
        #else
        var buffer = [CChar](repeating: 0, count: Int(MAXPATHLEN) + 1)
        guard fcntl(fd, F_GETPATH, &buffer) == 0 else { return nil }
        return String(cString: buffer)
        #endif
    }

    /// Reads the regular file `path` and tells where it really is (links resolved): for routes that serve only one
    /// kind of file, which must check the file they opened rather than the name they were given.
    public func readFileAndLocation(_ path: String, limit: Int, links: Links = .withinRoot) throws(ConfinementError) -> (content: FileContent, location: String)? {
        let components = try components(of: path)
        guard let fd = try openIfPresent(components, flags: O_RDONLY | O_NONBLOCK, links: links) else { return nil }
        defer { close(fd) }
        let content = try Self.read(fd, shown: Self.shown(components), limit: limit)
        guard let location = Self.currentPath(of: fd) else { throw .notFound(Self.shown(components)) }
        return (content, location)
    }

    /// The descriptor of `components` opened with `flags`, or nil when nothing is there (any other failure throws).
    private func openIfPresent(_ components: [String], flags: Int32, links: Links) throws(ConfinementError) -> Int32? {
        do throws(ConfinementError) {
            return try openDescriptor(components, flags: flags, links: links)
        } catch .notFound {
            return nil
        }
    }
}
