#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RootDirectory {
    /// Where a walk ended: the open directory holding the last component, and that component's name (nil when the
    /// path is a directory reached by `..` or the root itself). The caller closes `parent`.
    struct WalkEnd {
        var parent: Int32
        var name: String?
        /// Root-relative path of the last component as walked (links resolved), for messages.
        var shown: String
    }

    /// Opens `components` by walking them (see the type's documentation): the fallback for kernels without `openat2`,
    /// and the authority when `openat2` refuses a path.
    func walkDescriptor(_ components: [String], flags: Int32, mode: mode_t, links: Links) throws(ConfinementError) -> Int32 {
        let followLast = flags & O_NOFOLLOW == 0
        // An entry that changes kind between the look and the open (a file swapped for a link) is looked at again.
        for _ in 0..<8 {
            let end = try walk(components, followLast: followLast, links: links)
            defer { close(end.parent) }
            guard let name = end.name else {
                let fd = openat(end.parent, ".", flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW) | O_CLOEXEC, mode)
                if fd < 0 { throw .from(errno: errno, path: Self.shown(components), operation: "open") }
                return fd
            }
            let fd = openat(end.parent, name, flags | O_NOFOLLOW | O_CLOEXEC, mode)
            if fd >= 0 {
                // O_PATH | O_NOFOLLOW opens a link itself rather than failing: treat that as the link it is.
                if Self.pathFlag != 0, flags & Self.pathFlag != 0, FileSystem.status(fd: fd)?.isSymlink == true {
                    close(fd)
                    if !followLast || links == .refused { throw .symbolicLink(end.shown) }
                    continue
                }
                return fd
            }
            let code = errno
            if code == ELOOP || code == EMLINK {
                // The last component is a link: refused when asked so, else it appeared after the walk looked.
                if !followLast || links == .refused { throw .symbolicLink(end.shown) }
                continue
            }
            throw .from(errno: code, path: Self.shown(components), operation: "open")
        }
        throw .tooManyLinks(Self.shown(components))
    }

    /// One walk in progress: the directories opened below the root (closed when the walk ends), the components still
    /// to walk (last first), and the links followed so far.
    final class WalkState {
        let root: RootDirectory
        let components: [String]
        var stack: [(fd: Int32, name: String)] = []
        var pending: [String]
        var followed = 0
        var lastLink: String?

        init(root: RootDirectory, components: [String]) {
            self.root = root
            self.components = components
            self.pending = components.reversed()
        }

        deinit { closeAll() }

        /// The directory the next component is looked up in.
        var current: Int32 { stack.last?.fd ?? root.descriptor }
        /// Whether only `.` or empty components are left.
        var atLast: Bool { pending.allSatisfy { $0.isEmpty || $0 == "." } }
        /// The whole path, for errors that are not about a link.
        var requested: String { RootDirectory.shown(components) }

        /// The root-relative path walked so far, plus `name`.
        func walked(_ name: String? = nil) -> String { RootDirectory.shown(stack.map(\.name) + (name.map { [$0] } ?? [])) }

        func closeAll() {
            for entry in stack { close(entry.fd) }
            stack.removeAll()
        }

        /// `..`: back to the directory below, never above the root.
        func up() throws(ConfinementError) {
            guard let top = stack.popLast() else {
                if let lastLink { throw .symbolicLinkOutside(lastLink) }
                throw .outsideRoot(requested)
            }
            close(top.fd)
        }

        /// Counts one more look at a link (or at an entry that changed under the walk).
        func count(_ name: String) throws(ConfinementError) {
            followed += 1
            if followed > RootDirectory.maxLinks { throw .tooManyLinks(walked(name)) }
        }

        /// Continues the walk at the link `name`'s target: an absolute one from the root, when it names a path under it.
        func follow(_ name: String, to target: String) throws(ConfinementError) {
            try count(name)
            lastLink = walked(name)
            if target.hasPrefix("/") {
                guard let inside = try? root.components(of: target) else { throw .symbolicLinkOutside(walked(name)) }
                closeAll()
                pending += inside.reversed()
            } else {
                pending += target.split(separator: "/", omittingEmptySubsequences: true).map(String.init).reversed()
            }
        }

        /// Steps into the directory `name` (not a link when it was looked at), with `O_NOFOLLOW`; an entry that became a
        /// link meanwhile is looked at again.
        func enter(_ name: String) throws(ConfinementError) {
            let fd = openat(current, name, RootDirectory.directoryFlags | O_NOFOLLOW)
            guard fd < 0 else {
                stack.append((fd, name))
                return
            }
            let code = errno
            guard code == ELOOP || code == EMLINK || (code == ENOTDIR && RootDirectory.isLink(at: current, name)) else {
                throw .from(errno: code, path: requested, operation: "open")
            }
            try count(name)
            pending.append(name)
        }

        /// The end of the walk at `name` (nil: the path is a directory), handing over the directory holding it.
        func end(_ name: String?) throws(ConfinementError) -> WalkEnd {
            let shown = walked(name)
            if name != nil, let top = stack.popLast() { return WalkEnd(parent: top.fd, name: name, shown: shown) }
            let fd = fcntl(current, F_DUPFD_CLOEXEC, 0)
            if fd < 0 { throw .system(shown, operation: "open", errno: errno) }
            return WalkEnd(parent: fd, name: name, shown: shown)
        }
    }

    /// Walks `components` from the root descriptor and returns the directory holding the last one. Every directory is
    /// opened with `O_NOFOLLOW` relative to the previous one; symbolic links are read and followed here as `links`
    /// allows (the last component's only when `followLast`); `..` pops this walk's stack of open directories, so that
    /// nothing can rise above the root. Errors about a link name the link; others name the whole path, as the kernel's
    /// would.
    func walk(_ components: [String], followLast: Bool, links: Links) throws(ConfinementError) -> WalkEnd {
        guard descriptor >= 0 else { throw .system(".", operation: "open the workspace root", errno: openError) }
        let state = WalkState(root: self, components: components)
        while let name = state.pending.popLast() {
            if name.isEmpty || name == "." { continue }
            if name == ".." {
                try state.up()
                continue
            }
            let isLast = state.atLast
            if isLast && !followLast { return try state.end(name) }
            switch Self.readLink(at: state.current, name) {
            case .link(let target):
                guard links == .withinRoot else { throw .symbolicLink(state.walked(name)) }
                try state.follow(name, to: target)
            case .missing where isLast, .notLink where isLast:
                return try state.end(name)
            case .missing:
                throw .notFound(state.requested)
            case .notLink:
                try state.enter(name)
            case .failed(let code):
                throw .from(errno: code, path: state.requested, operation: "open")
            }
        }
        return try state.end(nil)
    }

    /// Whether the entry `name` of `directory` is a symbolic link now (`fstatat` with `AT_SYMLINK_NOFOLLOW`).
    static func isLink(at directory: Int32, _ name: String) -> Bool {
        var st = stat()
        return fstatat(directory, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && UInt32(st.st_mode) & UInt32(S_IFMT) == UInt32(S_IFLNK)
    }

    enum LinkLook {
        case link(String)
        case notLink
        case missing
        case failed(Int32)
    }

    /// `readlinkat(dirfd, name)`: the target of a symbolic link, or what the entry is instead.
    static func readLink(at directory: Int32, _ name: String) -> LinkLook {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlinkat(directory, name, &buffer, buffer.count)
        if count >= 0 {
            if count >= buffer.count { return .failed(ENAMETOOLONG) }
            let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return target.isEmpty ? .missing : .link(target)
        }
        switch errno {
        case EINVAL: return .notLink
        case ENOENT: return .missing
        case let code: return .failed(code)
        }
    }
}
