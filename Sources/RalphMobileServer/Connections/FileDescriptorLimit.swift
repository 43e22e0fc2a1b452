#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open files (`RLIMIT_NOFILE`), which every connection counts against, and the connection
/// limit derived from it.
public enum FileDescriptorLimit {
    /// The current soft limit.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        return Int(clamping: min(limit.rlim_cur, rlim_t(Int32.max)))
    }

    /// Raises the soft limit to the hard one (the most an unprivileged process may use); returns the limit in force.
    /// Login sessions often start with a soft limit of 1024 while allowing far more.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return current }
        var wanted = limit.rlim_max
        #if canImport(Darwin)
        // macOS refuses an unlimited soft limit for files; OPEN_MAX is the most setrlimit takes there.
        wanted = min(wanted, rlim_t(OPEN_MAX))
        #endif
        if wanted > limit.rlim_cur {
            limit.rlim_cur = wanted
            _ = setrlimit(resource, &limit)
        }
        return current
    }

    /// Descriptors kept for the server's own files (run files, the database, agents' pipes, inotify) out of `limit`:
    /// an eighth, and at least 128.
    public static func headroom(for limit: Int) -> Int {
        max(128, limit / 8)
    }

    /// The default connection limit for a descriptor limit: what is left after the headroom, at most 65 536 (each
    /// connection also costs memory), at least 16.
    public static func defaultMaxConnections(for limit: Int = current) -> Int {
        min(65_536, max(16, limit - headroom(for: limit)))
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}
