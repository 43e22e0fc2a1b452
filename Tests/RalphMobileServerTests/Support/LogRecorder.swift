import Logging
import Synchronization

/// A logger whose messages a test can read: to check that a failure is logged, not swallowed.
final class LogRecorder: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        /// The line's metadata: the logger's, its metadata provider's, then the line's own (each winning over the last).
        var metadata: Logger.Metadata = [:]
    }

    private let entries = Mutex<[Entry]>([])

    var messages: [Entry] { entries.withLock { $0 } }

    var logger: Logger {
        Logger(label: "test.recorder") { _ in Handler(recorder: self) }
    }

    /// A logger whose lines also carry what `provider` gives, as `LoggingSystem.bootstrap(_:metadataProvider:)` does.
    func logger(metadataProvider provider: Logger.MetadataProvider) -> Logger {
        Logger(label: "test.recorder") { _ in Handler(recorder: self, metadataProvider: provider) }
    }

    fileprivate func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadataProvider: Logger.MetadataProvider?
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var merged = metadata
            merged.merge(metadataProvider?.get() ?? [:]) { _, provided in provided }
            merged.merge(event.metadata ?? [:]) { _, own in own }
            recorder.append(Entry(level: event.level, message: "\(event.message)", metadata: merged))
        }
    }
}
