import Foundation
import RalphAPI
import RalphFiles

#if canImport(Glibc)
import Glibc
#endif

/// ralph 2.10's urgent steer: while `.ralph/urgent-steer.json` exists, the agent's next emit is refused once with the
/// steer's text, so the steer lands in the current iteration. The double's iteration "emits" its record, so the record
/// of the iteration the steer reached says `steer: …`. The file may come from the RPC `steer` or from anyone who
/// writes it (the server's experimental urgent steer of a discovered run).
extension FakeLoop {
    /// Text for the iteration's record: a pending urgent steer (taken, so it is delivered once) and `follow_up`s.
    func interjections() -> String {
        var notes = ""
        let file = layout.urgentSteer
        let taken = file + ".taken-\(getpid())"
        // Renamed before it is read: a steer written meanwhile makes a new file, for the next emit.
        if rename(file, taken) == 0 {
            defer { unlink(taken) }
            do {
                let steer = try WireJSON.decode(UrgentSteer.self, from: Data(contentsOf: URL(fileURLWithPath: taken)))
                notes += "\nsteer: " + steer.messages.joined(separator: "; ")
            } catch {
                FileHandle.standardError.write(Data("fake-ralph: ignoring an unreadable urgent-steer.json: \(error)\n".utf8))
            }
        }
        let followUps = rpcPort.shared.withLock { s in
            defer { s.followUps = [] }
            return s.followUps
        }
        if !followUps.isEmpty { notes += "\nfollow-up: " + followUps.joined(separator: "; ") }
        return notes
    }

    /// Clears the urgent steer (ralph does at loop start and exit); a missing file is what is wanted.
    func removeUrgentSteer() {
        if unlink(layout.urgentSteer) != 0, errno != ENOENT {
            FileHandle.standardError.write(Data("fake-ralph: cannot remove \(layout.urgentSteer): \(String(cString: strerror(errno)))\n".utf8))
        }
    }
}
