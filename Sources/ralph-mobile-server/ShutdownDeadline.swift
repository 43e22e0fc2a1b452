import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A stop that never hangs: once SIGTERM or SIGINT asks the server to stop, it has `seconds` to finish its graceful
/// shutdown (streams closed, runs it started stopped with their grace, the database told); past that, something waits
/// on what does not answer — a database that went away, say — and the process exits with status 1, saying so.
final class ShutdownDeadline {
    private let sources: [any DispatchSourceSignal]

    /// Watches SIGTERM and SIGINT beside the server's own handling of them (each gets every signal).
    init(seconds: Double) {
        let armed = Mutex(false)
        sources = [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let first = armed.withLock { armed in
                    defer { armed = true }
                    return !armed
                }
                guard first else { return }
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                    let message = "error: the server did not finish stopping within \(Int(seconds)) s of being asked to "
                        + "(something it waits for does not answer: is its database reachable?); exiting\n"
                    FileHandle.standardError.write(Data(message.utf8))
                    _exit(1)
                }
            }
            source.resume()
            return source
        }
    }

    /// The server stopped in time.
    func cancel() {
        sources.forEach { $0.cancel() }
    }
}
