#if canImport(Glibc)
import Glibc
#endif

/// The process's heap as the system sees it.
public enum Heap {
    /// Resident memory of this process in bytes (`/proc/self/statm`), nil where it cannot be read.
    public static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        #if canImport(Glibc)
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        return pages * 4096
        #endif
    }

    /// Hands freed heap pages back to the system (glibc keeps them otherwise, in every arena). Blocking for a moment:
    /// call it off the async runtime.
    public static func trim() {
        #if canImport(Glibc)
        _ = mallocTrim?(0)
        #endif
    }

    #if canImport(Glibc)
    /// glibc's `malloc_trim` (declared in malloc.h, which the Glibc module does not export).
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()
    #endif
}
