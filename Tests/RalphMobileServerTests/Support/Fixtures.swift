import Foundation
import RalphAPI
import RalphFiles

/// Writes ralph-shaped files for tests, in ralph's real formats.
enum Fixture {
    /// An orchestrator record line, as ralph writes it.
    static func record(_ topic: String, _ payload: String, iteration: Int, hat: String, triggered: String? = nil, at date: Date = Date()) -> String {
        String(decoding: EventFileAppender.recordLine(topic: topic, payload: payload, iteration: iteration, hat: hat, triggered: triggered, date: date), as: UTF8.self)
    }

    /// A line as `ralph emit` writes it.
    static func emit(_ topic: String, _ payload: JSONValue?, at date: Date = Date()) -> String {
        String(decoding: EventFileAppender.emitLine(topic: topic, payload: payload, date: date), as: UTF8.self)
    }

    static func terminate(_ reason: String, iterations: Int, at date: Date = Date()) -> String {
        let payload = "## Reason\n\(reason)\n\n## Status\nDone.\n\n## Summary\n- Iterations: \(iterations)\n- Duration: 1m 0s\n- Exit code: 0"
        return record("loop.terminate", payload, iteration: iterations, hat: "loop", at: date)
    }

    /// Creates `<workspace>/.ralph/<name>` holding `lines` (each followed by a newline).
    @discardableResult
    static func run(in workspace: String, name: String, lines: [String]) -> String {
        let dir = workspace + "/.ralph"
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let file = dir + "/" + name
        let text = lines.map { $0 + "\n" }.joined()
        _ = FileManager.default.createFile(atPath: file, contents: Data(text.utf8))
        return file
    }

    /// Appends a complete line with one write, as ralph does.
    static func append(_ line: String, to file: String) {
        try! EventFileAppender.append(line: Array(line.utf8), to: file)
    }

    /// Appends raw bytes (partial lines, invalid UTF-8, …).
    static func appendRaw(_ bytes: [UInt8], to file: String) {
        let handle = FileHandle(forWritingAtPath: file)!
        handle.seekToEndOfFile()
        handle.write(Data(bytes))
        try! handle.close()
    }

    static func write(_ text: String, to path: String) {
        try! FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }

    /// The session id of a run file.
    static func id(_ file: String) -> String { RunID.make(forPath: file) }

    static func date(_ text: String) -> Date { Timestamp.parse(text)! }
}
