import Foundation
import RalphAPI

@testable import RalphFiles

// Builders of events-file lines as ralph writes them, and folds of them into a `RunState`, for the RunState suites.

/// 2026-02-05T10:00:00Z
let base = 1_770_285_600.0

private func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

/// ralph's timestamp `s` seconds after 2026-02-05T10:00:00Z, in its nanosecond `+00:00` form.
func t(_ s: Int) -> String {
    "2026-02-05T\(pad(10 + s / 3600)):\(pad(s / 60 % 60)):\(pad(s % 60)).000000000+00:00"
}

/// The contract form (`Timestamp.format`) of the same instant.
func z(_ s: Int) -> String {
    "2026-02-05T\(pad(10 + s / 3600)):\(pad(s / 60 % 60)):\(pad(s % 60)).000Z"
}

/// An orchestrator record, fields in ralph's order.
func record(
    _ ts: String?, _ iteration: Int, _ hat: String, _ topic: String, triggered: String? = nil, payload: JSONValue? = "…",
    extra: [(key: String, value: JSONValue)] = []
) -> String {
    var members: [(key: String, value: JSONValue)] = []
    if let ts { members.append(("ts", .string(ts))) }
    members.append(("iteration", .int(iteration)))
    members.append(("hat", .string(hat)))
    members.append(("topic", .string(topic)))
    if let triggered { members.append(("triggered", .string(triggered))) }
    if let payload { members.append(("payload", payload)) }
    return JSONWriter.string(.object(JSONObject(members + extra)))
}

/// The loop's first record, at the run's start, handing the work to `hat`.
func taskStart(_ hat: String) -> String { record(t(0), 0, "loop", "task.start", triggered: hat) }

/// A `ralph emit` style line: no iteration, no hat.
func emit(_ topic: String, _ ts: String?, payload: JSONValue? = "…", extra: [(key: String, value: JSONValue)] = []) -> String {
    var members: [(key: String, value: JSONValue)] = []
    if let payload { members.append(("payload", payload)) }
    members.append(("topic", .string(topic)))
    if let ts { members.append(("ts", .string(ts))) }
    return JSONWriter.string(.object(JSONObject(members + extra)))
}

/// Folds lines in order; ids are 1-based line numbers.
func foldLines(_ lines: [String]) -> RunState {
    var state = RunState()
    for (index, line) in lines.enumerated() {
        state.apply(EventLineDecoder.decode(line, id: index + 1))
    }
    return state
}

/// The states after each prefix of `lines`.
func foldPrefixes(_ lines: [String]) -> [RunState] {
    var state = RunState()
    var states: [RunState] = []
    for (index, line) in lines.enumerated() {
        state.apply(EventLineDecoder.decode(line, id: index + 1))
        states.append(state)
    }
    return states
}
