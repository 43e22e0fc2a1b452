import Foundation
import RalphAPI
import RalphFiles
import Testing

@Suite("Replaying events from a run file")
struct EventFileReaderTests {
    /// Reads every batch from the catalog's checkpoint for `after` through `through`.
    func replay(_ catalog: RunCatalog, _ id: String, after: Int, through: Int, maxBytes: Int = 4096) throws -> [RalphEvent] {
        var position = try #require(catalog.replayStart(id: id, afterLine: after))
        var events: [RalphEvent] = []
        while true {
            let batch = try EventFileReader.read(from: position, after: after, through: through, maxBytes: maxBytes)
            events += batch.events
            if batch.done { return events }
            position = batch.next
        }
    }

    @Test("any range of ids reads back the same events the catalog numbered, across checkpoints and small batches")
    func ranges() async throws {
        let tmp = TempDir()
        var lines: [String] = []
        for n in 1...5000 {
            lines.append(n % 97 == 0 ? "not json" : n % 89 == 0 ? "" : emitLine("e", "line \(n)"))
        }
        let file = tmp.file("p/.ralph/events-20260101-000000.jsonl", lines.joined(separator: "\n") + "\n")
        let catalog = await startCatalog([tmp.path])
        defer { catalog.stop() }
        let id = RunID.make(forPath: file)
        #expect(catalog.snapshot(id: id)?.state.lineCount == 5000)
        #expect(catalog.snapshot(id: id)?.checkpoints.count == 5)
        let expectedIDs = (1...5000).filter { $0 % 97 != 0 && $0 % 89 != 0 }
        for (after, through) in [(0, 5000), (1023, 1025), (1024, 2048), (4999, 5000), (3000, 3000), (0, 1), (2500, 4100)] {
            let events = try replay(catalog, id, after: after, through: through)
            #expect(events.map(\.id) == expectedIDs.filter { $0 > after && $0 <= through }, "range (\(after), \(through)]")
            #expect(events.allSatisfy { $0.payloadText == "line \($0.id)" })
        }
    }

    @Test("a file replaced after the position was taken is reported, not misread")
    func replacedFile() async throws {
        let tmp = TempDir()
        let file = tmp.file("p/.ralph/events-20260101-000000.jsonl", (1...10).map { emitLine("e", "\($0)") }.joined(separator: "\n") + "\n")
        let catalog = await startCatalog([tmp.path])
        defer { catalog.stop() }
        let position = try #require(catalog.replayStart(id: RunID.make(forPath: file), afterLine: 0))
        let other = tmp.file("p/other", emitLine("x", "y") + "\n")
        #expect(rename(other, file) == 0)
        #expect(throws: EventFileReader.ReadError.fileChanged) { try EventFileReader.read(from: position, after: 0, through: 10) }
    }
}
