import Foundation
import RalphFiles

/// ralph's stale-loop detection (ralph-core `event_loop/mod.rs`, `loop_state.rs`): the same event signature — topic,
/// the hat that emitted it, and the payload — emitted three or more times in a row ends the loop at the next
/// boundary with `loop_stale` (exit 1, "Stale loop detected").
///
/// `fake_ralph.stale_from: n` makes every iteration from n on emit the identical record (an agent stuck on one
/// blocker); with one hat the signature repeats and the loop ends as ralph's does. With several hats the emitting hat
/// changes and nothing is stale, as in ralph.
extension FakeLoop {
    static let loopStale = Ending(reason: "loop_stale", status: "Stale loop detected.", exitCode: 1)

    /// At the boundary: the loop is stale once the same signature came three times in a row.
    func staleAtBoundary() -> Ending? {
        signals.sameSignatureCount >= 3 ? Self.loopStale : nil
    }

    /// Records iteration `n`'s own emit (the record stuck from `stale_from` on) and counts repeated signatures.
    func recordIteration(_ n: Int, hat: String, payload: String, next: String) throws {
        let stuckFrom = Int(behaviour.number("stale_from", 0))
        let text = stuckFrom > 0 && n >= stuckFrom ? "blocked: the same failing test again" : payload
        let topic = "\(hat).done"
        try record(topic, text, iteration: n, hat: hat, triggered: next)
        let signature = [topic, hat, text].joined(separator: "\u{1F}")
        if signature == signals.lastSignature {
            signals.sameSignatureCount += 1
        } else {
            signals.lastSignature = signature
            signals.sameSignatureCount = 1
        }
    }
}
