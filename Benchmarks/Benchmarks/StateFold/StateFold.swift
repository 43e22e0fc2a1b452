// The state fold: a run's decoded lines folded into RunState (RalphFiles/State), and the list/detail views the
// server derives from it (RunSnapshot.session / DetailedRun.detail). The fold benchmarks feed 1 000 real ralph lines per
// iteration (scalingFactor .kilo): figures marked `*` are per line.
import Benchmark
import BenchCorpus
import Foundation
import RalphAPI
import RalphFiles

let lineCount = 1_000

let benchmarks: @Sendable () -> Void = {
    let decoded: [DecodedLine] = Corpus.runFile(lines: lineCount).enumerated().map { EventLineDecoder.decode($0.element, id: $0.offset + 1) }
    let raw = Corpus.runFile(lines: lineCount).map { Array($0.utf8) }

    Benchmark(
        "RunState.apply (1 decoded line)",
        configuration: .init(metrics: [.throughput, .wallClock, .cpuTotal, .mallocCountTotal], scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 10_000)
    ) { benchmark in
        var state = RunState()
        for line in decoded { state.apply(line) }
        precondition(state.lineCount == lineCount && state.termination != nil)
        blackHole(state)
    }

    Benchmark(
        "decode + RunState.apply (1 raw line, what a first read costs)",
        configuration: .init(metrics: [.throughput, .wallClock, .cpuTotal, .mallocCountTotal], scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 10_000)
    ) { benchmark in
        var state = RunState()
        for (i, line) in raw.enumerated() {
            line.withUnsafeBufferPointer { state.apply(EventLineDecoder.decode($0, id: i + 1)) }
        }
        blackHole(state)
    }

    var state = RunState()
    for line in decoded { state.apply(line) }
    let location = RunLocation(file: "/tmp/ws/.ralph/events-20260205-080913.jsonl", stateDirectory: "/tmp/ws/.ralph", workspace: "/tmp/ws", root: "/tmp", layout: .ralph)
    let snapshot = RunSnapshot(location: location, state: state)
    let detailed = DetailedRun(snapshot: snapshot, details: state.details)
    let now = Date()

    Benchmark(
        "RunSnapshot.session (1 list entry, folded 1 000-line run)",
        configuration: .init(metrics: [.throughput, .wallClock, .mallocCountTotal], maxDuration: .seconds(2), maxIterations: 100_000)
    ) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(snapshot.session(paused: false, now: now)) }
    }

    Benchmark(
        "RunSnapshot.detail (session detail, folded 1 000-line run)",
        configuration: .init(metrics: [.throughput, .wallClock, .mallocCountTotal], maxDuration: .seconds(2), maxIterations: 100_000)
    ) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(detailed.detail(paused: false, now: now)) }
    }
}
