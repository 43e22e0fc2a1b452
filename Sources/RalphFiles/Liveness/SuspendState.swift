import Foundation
import RalphAPI

/// Reads ralph's `.ralph/suspend-state.json` (schema_version 1):
/// `{"schema_version":1,"state":"suspended","loop_id":…,"phase_event":…,"hook_name":…,"reason":…,"suspend_mode":…,
/// "suspended_at":…}`. ralph writes it atomically, so a file that does not parse is not a suspension (a newer schema,
/// or something else's file) rather than a half-written one.
public enum SuspendState {
    /// The suspension the file describes, or nil when it is not a `suspended` state of a known schema.
    public static func parse(_ bytes: [UInt8]) -> Suspension? {
        guard case .object(let o)? = try? JSONParser.parse(bytes) else { return nil }
        guard o["schema_version"]?.intValue == 1, o["state"]?.stringValue == "suspended",
            let hook = o["hook_name"]?.stringValue, let phase = o["phase_event"]?.stringValue
        else { return nil }
        return Suspension(
            hookName: hook, phase: phase, reason: o["reason"]?.stringValue, suspendMode: o["suspend_mode"]?.stringValue ?? "wait_for_resume",
            since: o["suspended_at"]?.stringValue.map { Timestamp.parse($0).map(Timestamp.format) ?? $0 }, loopId: o["loop_id"]?.stringValue
        )
    }
}
