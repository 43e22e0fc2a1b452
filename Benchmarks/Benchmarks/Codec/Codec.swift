// The JSONL event decoder: one line of a ralph events file → RalphEvent (RalphFiles' EventLineDecoder), and on to
// the `workflow` payload bytes the server sends (WorkflowPayload.object + JSONWriter.bytes).
// Each benchmark iteration handles 1 000 real ralph lines (scalingFactor .kilo): figures marked `*` are per line.
import Benchmark
import BenchCorpus
import RalphAPI
import RalphFiles

let lineCount = 1_000
nonisolated(unsafe) let configuration = Benchmark.Configuration(
    metrics: [.throughput, .wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
    scalingFactor: .kilo,
    maxDuration: .seconds(2),
    maxIterations: 10_000
)

let benchmarks: @Sendable () -> Void = {
    let lines = Corpus.runFile(lines: lineCount).map { Array($0.utf8) }
    precondition(lines.count == lineCount)

    Benchmark("EventLineDecoder.decode (1 real ralph line)", configuration: configuration) { benchmark in
        for i in benchmark.scaledIterations {
            let line = lines[i % lineCount]
            line.withUnsafeBufferPointer { blackHole(EventLineDecoder.decode($0, id: i + 1)) }
        }
    }

    Benchmark("decode + workflow payload bytes (line → data: JSON)", configuration: configuration) { benchmark in
        for i in benchmark.scaledIterations {
            let line = lines[i % lineCount]
            line.withUnsafeBufferPointer {
                if case .event(let event) = EventLineDecoder.decode($0, id: i + 1) {
                    blackHole(JSONWriter.bytes(WorkflowPayload.object(event)))
                }
            }
        }
    }

    // The file as the server reads it: one buffer, split with LineSplitter, each line decoded.
    let file = Array(lines.map { $0 + [0x0A] }.joined())
    Benchmark("LineSplitter + decode (1 line of a 1 000-line file buffer)", configuration: configuration) { benchmark in
        var splitter = LineSplitter()
        var id = 0
        file.withUnsafeBytes { raw in
            splitter.feed(raw) { piece in
                id += 1
                if case .complete(let bytes, _) = piece { blackHole(EventLineDecoder.decode(bytes, id: id)) }
                return true
            }
        }
        precondition(id == lineCount)
    }
}
