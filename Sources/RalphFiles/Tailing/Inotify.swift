#if os(Linux)
import Glibc

/// A non-blocking inotify instance watching directories. Confined to the thread that made it.
final class Inotify {
    struct Event {
        var directory: String
        var name: String
        var mask: UInt32
    }

    static let create: UInt32 = 0x0000_0100
    static let delete: UInt32 = 0x0000_0200
    static let modify: UInt32 = 0x0000_0002
    static let attrib: UInt32 = 0x0000_0004
    static let closeWrite: UInt32 = 0x0000_0008
    static let movedFrom: UInt32 = 0x0000_0040
    static let movedTo: UInt32 = 0x0000_0080
    static let deleteSelf: UInt32 = 0x0000_0400
    static let moveSelf: UInt32 = 0x0000_0800
    static let queueOverflow: UInt32 = 0x0000_4000
    static let ignored: UInt32 = 0x0000_8000
    static let onlyDirectory: UInt32 = 0x0100_0000
    static let isDirectory: UInt32 = 0x4000_0000

    /// What a directory of workspaces is watched for: entries appearing and disappearing.
    static let containerMask: UInt32 = create | delete | movedFrom | movedTo | deleteSelf | moveSelf | onlyDirectory
    /// What a `.ralph` directory is watched for: also writes to its files.
    static let stateMask: UInt32 = containerMask | modify | closeWrite | attrib

    let fd: Int32
    private var pathByWatch: [Int32: String] = [:]
    private var watchByPath: [String: Int32] = [:]
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    init?() {
        let fd = inotify_init1(Int32(O_NONBLOCK | O_CLOEXEC))
        guard fd >= 0 else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    var watchedPaths: Set<String> { Set(watchByPath.keys) }

    /// Adds (or updates) a watch; false if the kernel refused (e.g. the watch limit is reached).
    @discardableResult
    func watch(_ path: String, mask: UInt32) -> Bool {
        let wd = inotify_add_watch(fd, path, mask)
        guard wd >= 0 else { return false }
        pathByWatch[wd] = path
        watchByPath[path] = wd
        return true
    }

    func unwatch(_ path: String) {
        guard let wd = watchByPath.removeValue(forKey: path) else { return }
        pathByWatch[wd] = nil
        inotify_rm_watch(fd, wd)
    }

    /// Reads every queued event without blocking.
    func drain() -> [Event] {
        var events: [Event] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            buffer.withUnsafeBytes { raw in
                var offset = 0
                while offset + 16 <= n {
                    let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    var name = ""
                    if length > 0 {
                        let bytes = raw[(offset + 16)..<(offset + 16 + length)]
                        name = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    if mask & Inotify.queueOverflow != 0 {
                        events.append(Event(directory: "", name: "", mask: mask))
                    } else if let dir = pathByWatch[wd] {
                        events.append(Event(directory: dir, name: name, mask: mask))
                        if mask & Inotify.ignored != 0 {
                            pathByWatch[wd] = nil
                            watchByPath[dir] = nil
                        }
                    }
                    offset += 16 + length
                }
            }
        }
        return events
    }
}
#endif
