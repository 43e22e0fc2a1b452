// workspace-scale: figure 6 of issue 9. A workspace of 1 000 runs holding 10 M event lines in ralph's real layout;
// for a first start on an empty data dir (every line folded, then indexed) and for a restart on the same data dir
// (the run index read back): the time from starting ralph-mobile-server to the first complete `GET /api/sessions`,
// the warm list time and the server's resident memory once its index is complete.
//
//   swift run -c release --package-path Benchmarks workspace-scale --server .build/release/ralph-mobile-server
//
// Options: --server <path> (required), --dir <dir> (where the workspace is generated and cached; default
// $TMPDIR/ralph-bench-workspace-<runs>x<lines>), --runs N (1000), --lines N (total, 10000000), --runs-per-workspace N
// (20), --repeat N (3), --warm N (20 requests), --timeout S (per server start, 600).
//
// Everything printed is measured in this run. One JSON line per figure and repetition, then min/median/max.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

for sig in [SIGINT, SIGTERM] {
    signal(sig) { s in
        if runningServerPID > 0 { kill(runningServerPID, SIGKILL) }
        _exit(128 + s)
    }
}

// MARK: - Main

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
guard let server = options.server else { fail("--server <path to a release ralph-mobile-server> is required (swift build -c release --product ralph-mobile-server)") }
guard FileManager.default.isExecutableFile(atPath: server) else { fail("\(server) is not an executable file") }
guard options.runs >= options.runsPerWorkspace || options.runs >= 1 else { fail("--runs must be at least 1") }
guard options.lines >= options.runs * 2 else { fail("--lines must be at least 2 per run") }
let dir = options.dir ?? (NSTemporaryDirectory() + "ralph-bench-workspace-\(options.runs)x\(options.lines)")
let generator = Generator(dir: dir, runs: options.runs, lines: options.lines, runsPerWorkspace: options.runsPerWorkspace)
if generator.isCached() {
    log("using the cached workspace \(dir) (\(options.runs) runs, \(options.lines) lines)")
} else {
    log("generating \(options.runs) runs / \(options.lines) lines in \(dir)")
    let t0 = monotonic()
    let bytes = generator.generate()
    let seconds = monotonic() - t0
    print(#"{"figure": "6. workspace generation (setup, cached between runs)", "value": \#((seconds * 100).rounded() / 100), "unit": "s", "bytes": \#(bytes)}"#)
    print(String(format: "  generated %d runs / %d lines (%.0f MB) in %.1f s", options.runs, options.lines, Double(bytes) / 1e6, seconds))
}

var repetitions: [Repetition] = []
for index in 0..<options.repeats {
    log("repetition \(index + 1)/\(options.repeats): starting \(server)")
    let r = measureOnce(options: options, workspace: dir, expectedRuns: options.runs, expectedLines: options.lines, index: index)
    repetitions.append(r)
    print("repetition \(index + 1) of \(options.repeats) (\(options.runs) runs, \(options.lines) lines, list \(r.first.listBytes) bytes):")
    emit(coldFigure, r.first.firstListMs)
    emit(rssFigure, r.first.rssMB)
    emit(restartFigure, r.restart.firstListMs)
    emit(warmFigure, r.first.warmMs, extra: " (first start)")
    emit(warmFigure, r.restart.warmMs, extra: " (restart)")
    emit(restartRSSFigure, r.restart.rssMB)
}

func summary(_ figure: Figure, _ values: [Double]) {
    let sorted = values.sorted()
    let median = sorted[sorted.count / 2]
    func r(_ v: Double) -> Double { (v * 100).rounded() / 100 }
    let met = median <= figure.target
    print(#"{"figure": "\#(figure.name)", "value": \#(r(median)), "min": \#(r(sorted.first!)), "max": \#(r(sorted.last!)), "median": \#(r(median)), "unit": "\#(figure.unit)", "target": \#(figure.target), "met": \#(met), "repetitions": \#(values.count), "runs": \#(options.runs), "lines": \#(options.lines)}"#)
    print("  \(figure.name): min \(r(sorted.first!)) / median \(r(median)) / max \(r(sorted.last!)) \(figure.unit) (target ≤ \(figure.target): \(met ? "met" : "NOT met"))")
}
print("summary over \(repetitions.count) repetitions (each: a first start and a restart):")
summary(coldFigure, repetitions.map(\.first.firstListMs))
summary(restartFigure, repetitions.map(\.restart.firstListMs))
summary(warmFigure, repetitions.flatMap { [$0.first.warmMs, $0.restart.warmMs] })
summary(rssFigure, repetitions.map(\.first.rssMB))
summary(restartRSSFigure, repetitions.map(\.restart.rssMB))
