import Foundation
import RalphAPI

/// The binary form of the guidance and wave parts of a fold (version 2 of the index layout).
extension RunState {
    func encodeSignals(into w: inout BinaryWriter) {
        w.write(details.guidance.count)
        for g in details.guidance {
            w.write(g.text)
            w.write(g.sentAt)
            w.write(g.eventId)
            w.write(g.state.rawValue)
            w.write(g.ack)
            w.write(g.ackedAt)
            w.write(g.ackEventId)
        }
        w.write(details.waves.count)
        for wave in details.waves {
            w.write(wave.id)
            w.write(wave.total)
            w.write(wave.indices.count)
            for i in wave.indices { w.write(i) }
            w.write(wave.hats.count)
            for hat in wave.hats { w.write(hat) }
            w.write(wave.iteration)
            w.write(wave.events)
            w.write(wave.firstEventId)
            w.write(wave.lastEventId)
            w.write(wave.startedAt)
            w.write(wave.lastAt)
        }
    }

    mutating func decodeSignals(_ r: inout BinaryReader) throws(BinaryReader.Malformed) {
        for _ in 0..<(try r.readCount()) {
            details.guidance.append(
                GuidanceItem(
                    text: try r.readString(), sentAt: try r.readOptionalString(), eventId: try r.readInt(), state: GuidanceState(rawValue: try r.readString()),
                    ack: try r.readOptionalString(), ackedAt: try r.readOptionalString(), ackEventId: try r.readOptionalInt()
                )
            )
        }
        for _ in 0..<(try r.readCount()) {
            let id = try r.readString()
            let total = try r.readInt()
            var indices: [Int] = []
            for _ in 0..<(try r.readCount()) { indices.append(try r.readInt()) }
            var hats: [String] = []
            for _ in 0..<(try r.readCount()) { hats.append(try r.readString()) }
            details.waves.append(
                WaveGroup(
                    id: id, total: total, done: indices.count, indices: indices, hats: hats, iteration: try r.readOptionalInt(), events: try r.readInt(),
                    firstEventId: try r.readInt(), lastEventId: try r.readInt(), startedAt: try r.readOptionalString(), lastAt: try r.readOptionalString()
                )
            )
        }
    }
}
