import Foundation
import RalphAPI

/// Reads ralph's `loop.terminate` payload:
///
/// ```text
/// ## Reason
/// completed
///
/// ## Status
/// All tasks completed successfully.
///
/// ## Summary
/// - Iterations: 12
/// - Duration: 21m 0s
/// - Exit code: 0
/// ```
public enum LoopTerminate {
    /// Parses the payload; unknown layouts still give a reason (the first non-empty line) so nothing is invented.
    public static func parse(_ payload: String?, at: String?) -> StopReason {
        guard let payload, !payload.isEmpty else { return StopReason(reason: "unknown", at: at) }
        var sections: [String: [String]] = [:]
        var current = ""
        for raw in payload.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") {
                current = line.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces).lowercased()
                continue
            }
            if !line.isEmpty { sections[current, default: []].append(line) }
        }
        let reason = sections["reason"]?.first ?? sections[""]?.first ?? "unknown"
        let message = sections["status"].map { $0.joined(separator: " ") }
        var iterations: Int?
        var duration: String?
        var exitCode: Int?
        for item in sections["summary"] ?? [] {
            let bullet = item.hasPrefix("-") ? item.dropFirst().trimmingCharacters(in: .whitespaces) : item
            guard let colon = bullet.firstIndex(of: ":") else { continue }
            let key = bullet[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = bullet[bullet.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch key {
            case "iterations": iterations = Int(value)
            case "duration": duration = value
            case "exit code": exitCode = Int(value)
            default: break
            }
        }
        return StopReason(reason: reason, message: message, iterations: iterations, duration: duration, exitCode: exitCode, at: at)
    }

    /// The session status a termination reason stands for. ralph 2.10's `cancelled` (the cancellation promise, exit
    /// 0) is a stop; `loop_stale` and `workspace_gone` (exit 1) are failures, like every other limit or failure reason.
    public static func status(forReason reason: String) -> SessionStatus {
        switch reason {
        case "completed": .completed
        case "stopped", "interrupted", "restart_requested", "exited", "cancelled": .stopped
        default: .failed
        }
    }
}
