import Foundation
import NIOPosix
import RalphAPI
import RalphFiles

/// Appends events to runs where ralph reads them, and tells the new event's id.
struct EventWriter: Sendable {
    let catalog: RunCatalog

    /// Appends `{"payload":…,"topic":…,"ts":…}` (the line `ralph emit` writes) to the run's file with one `O_APPEND`
    /// write, and returns its id. The run must be live (running or paused): ralph reads new lines at the end of each
    /// iteration, and a finished run reads nothing. The file is opened from the descriptor of the run's root with no
    /// symbolic link on the way: an events file or `.ralph` swapped for a link is `400 invalid_path:`, nothing written.
    /// The id is the one the session stream shows (`<line>:<check>`).
    func append(topic: String, payload: JSONValue, to snapshot: RunSnapshot, at date: Date) async throws(APIError) -> SessionEventID {
        let line = try await appendLine(topic: topic, payload: payload, to: snapshot, at: date)
        return SessionEventID(line: line, check: SessionEventID.check(ts: Timestamp.formatRalph(date), topic: topic))
    }

    private func appendLine(topic: String, payload: JSONValue, to snapshot: RunSnapshot, at date: Date) async throws(APIError) -> Int {
        guard snapshot.isLive else {
            throw .notRunning("session \(snapshot.id) is not running (\(snapshot.status.rawValue)); ralph would never read the event")
        }
        let line = EventFileAppender.emitLine(topic: topic, payload: payload, date: date)
        let catalog = self.catalog
        let id = snapshot.id
        let file = snapshot.location.file
        let rootPath = snapshot.location.root
        do {
            return try await NIOThreadPool.singleton.runIfActive { () throws -> Int in
                let start: Int
                do throws(ConfinementError) {
                    start = try EventFileAppender.appendReturningOffset(line: line, to: file, in: RootDirectory(path: rootPath))
                } catch {
                    throw APIError(error, doing: "write to the run's events file")
                }
                guard let number = try catalog.lineNumber(id: id, lineStartingAt: start) else {
                    throw APIError.sessionNotFound("session \(id) is gone")
                }
                return number
            }
        } catch let error as APIError {
            throw error
        } catch {
            throw .internalError("could not write to the run's events file: \(error)")
        }
    }
}
