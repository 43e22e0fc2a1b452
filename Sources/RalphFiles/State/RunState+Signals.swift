import Foundation
import RalphAPI

/// What ralph 2.9–2.10 added to the events file that a companion groups: guidance and its acknowledgements
/// (`human.guidance` → `human.guidance.ack`), and agent waves (`wave_id`, `wave_index`, `wave_total`).
extension RunState {
    public static let guidanceLimit = 50
    public static let waveLimit = 20

    /// Folds the guidance and wave fields of one event into the details.
    static func foldSignals(_ event: RalphEvent, into details: inout RunDetails) {
        switch event.topic {
        case "human.guidance":
            details.guidance.append(
                GuidanceItem(text: event.payloadText ?? "", sentAt: normalised(event), eventId: event.id, state: .pending)
            )
            if details.guidance.count > guidanceLimit { details.guidance.removeFirst(details.guidance.count - guidanceLimit) }
        case "human.guidance.ack":
            // One ack answers every guidance line still pending before it (ralph keeps a single "unacknowledged" flag).
            for i in details.guidance.indices where details.guidance[i].state == .pending {
                details.guidance[i].state = .acknowledged
                details.guidance[i].ack = event.payloadText ?? ""
                details.guidance[i].ackedAt = normalised(event)
                details.guidance[i].ackEventId = event.id
            }
        default:
            break
        }
        if let waveID = event.fields["wave_id"]?.stringValue, !waveID.isEmpty { foldWave(waveID, event, into: &details) }
    }

    private static func foldWave(_ waveID: String, _ event: RalphEvent, into details: inout RunDetails) {
        let index = event.fields["wave_index"]?.intValue
        let total = event.fields["wave_total"]?.intValue ?? 0
        let at = normalised(event)
        if let i = details.waves.lastIndex(where: { $0.id == waveID }) {
            var wave = details.waves[i]
            wave.total = max(wave.total, total)
            if let index, !wave.indices.contains(index) {
                wave.indices.append(index)
                wave.indices.sort()
            }
            wave.done = wave.indices.count
            if let hat = event.hat, !wave.hats.contains(hat) { wave.hats.append(hat) }
            wave.events += 1
            wave.lastEventId = event.id
            wave.lastAt = at ?? wave.lastAt
            details.waves[i] = wave
            return
        }
        let indices = index.map { [$0] } ?? []
        details.waves.append(
            WaveGroup(
                id: waveID, total: total, done: indices.count, indices: indices, hats: event.hat.map { [$0] } ?? [], iteration: event.iteration,
                events: 1, firstEventId: event.id, lastEventId: event.id, startedAt: at, lastAt: at
            )
        )
        if details.waves.count > waveLimit { details.waves.removeFirst(details.waves.count - waveLimit) }
    }

    private static func normalised(_ event: RalphEvent) -> String? {
        event.ts.map { ts in Timestamp.parse(ts).map(Timestamp.format) ?? ts }
    }
}
