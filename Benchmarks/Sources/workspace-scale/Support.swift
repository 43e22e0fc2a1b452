import Foundation  // and, through it, the C library (Glibc or Darwin)

/// The server being measured: killed if this program fails or is interrupted.
nonisolated(unsafe) var runningServerPID: Int32 = 0

/// Stops the measured server and exits with the message: every failure of this program is fatal.
func fail(_ message: String) -> Never {
    if runningServerPID > 0 { kill(runningServerPID, SIGKILL) }
    FileHandle.standardError.write(Data("workspace-scale: error: \(message)\n".utf8))
    exit(1)
}

func log(_ message: String) {
    FileHandle.standardError.write(Data("workspace-scale: \(message)\n".utf8))
}

func monotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
