import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Sleeps until the monotonic clock reaches `deadline` (nanoseconds): pacing by deadline, not by interval, keeps
/// the publish rate steady however long each publish takes.
func sleepUntil(_ deadline: Int64) {
    let now = monotonicNanos()
    guard deadline > now else { return }
    var ts = timespec(tv_sec: Int((deadline - now) / 1_000_000_000), tv_nsec: Int((deadline - now) % 1_000_000_000))
    nanosleep(&ts, nil)
}

/// Milliseconds (or any figure) with three decimals, for the human lines.
func fmt(_ value: Double) -> String { String(format: "%.3f", value) }
