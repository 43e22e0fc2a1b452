import Foundation
import RalphAPI

#if canImport(Glibc)
import Glibc
#endif

/// Where sessions are kept: `<config>/projects/<cwd with "/" replaced by "-">/<session_id>.jsonl`.
struct SessionStore: Sendable {
    let directory: String

    init(configDirectory: String, cwd: String) {
        directory = configDirectory + "/projects/" + cwd.replacingOccurrences(of: "/", with: "-")
    }

    func path(_ sessionID: String) -> String { directory + "/" + sessionID + ".jsonl" }

    func exists(_ sessionID: String) -> Bool {
        !sessionID.contains("/") && FileManager.default.fileExists(atPath: path(sessionID))
    }

    func append(_ line: JSONValue, to sessionID: String) {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fd = open(path(sessionID), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        writeAll(fd, JSONWriter.bytes(line) + [0x0A])
    }
}
