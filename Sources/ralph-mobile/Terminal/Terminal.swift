import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal in full-screen mode: alternate screen, hidden cursor, raw keys. Restored on exit, on SIGINT/SIGTERM,
/// and if the process is suspended and continued.
final class FullScreen: Sendable {
    private let original = Mutex<termios?>(nil)

    init() {}

    func enter() {
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
        original.withLock { $0 = settings }
        var raw = settings
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        FullScreen.write("\u{1B}[?1049h\u{1B}[?25l")
        FullScreen.active.withLock { $0 = settings }
        signal(SIGINT) { _ in FullScreen.restoreAndExit(130) }
        signal(SIGTERM) { _ in FullScreen.restoreAndExit(143) }
    }

    func leave() {
        guard var settings = original.withLock({ $0 }) else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        FullScreen.write("\u{1B}[?25h\u{1B}[?1049l")
        original.withLock { $0 = nil }
        FullScreen.active.withLock { $0 = nil }
    }

    /// The settings to restore from a signal handler.
    static let active = Mutex<termios?>(nil)

    static func restoreAndExit(_ code: Int32) -> Never {
        if var settings = active.withLock({ $0 }) { tcsetattr(STDIN_FILENO, TCSANOW, &settings) }
        write("\u{1B}[?25h\u{1B}[?1049l")
        _exit(code)
    }

    static func write(_ text: String) {
        Output.write(text, to: STDOUT_FILENO)
    }

    /// Terminal size (columns, rows); 100×30 when unknown.
    static func size() -> (columns: Int, rows: Int) {
        var ws = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 { return (Int(ws.ws_col), Int(ws.ws_row)) }
        return (100, 30)
    }
}

/// Keys read from stdin on a dedicated thread (a blocking read never touches the async runtime).
enum KeyReader {
    static func keys() -> AsyncStream<UInt8> {
        let (stream, continuation) = AsyncStream<UInt8>.makeStream()
        let thread = Thread {
            var byte: UInt8 = 0
            while true {
                let n = read(STDIN_FILENO, &byte, 1)
                if n <= 0 { break }
                continuation.yield(byte)
            }
            continuation.finish()
        }
        thread.name = "ralph-mobile.keys"
        thread.start()
        return stream
    }
}

/// Writes to stdout and stderr with write(2): all of it, retrying on EINTR. When the reader has gone away (`… | head`),
/// the command ends quietly, as Unix tools do, instead of crashing on the broken pipe.
enum Output {
    static func write(_ text: String, to fd: Int32) {
        write(bytes: Array(text.utf8), to: fd)
    }

    static func write(bytes: [UInt8], to fd: Int32) {
        var bytes = bytes
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                #if canImport(Glibc)
                Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                Darwin.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EPIPE { exit(0) }
            if n <= 0 { return }
            offset += n
        }
    }
}
