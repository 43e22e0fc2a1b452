// The SSE frame encoder (server) and the SSE parser (client SDK).
//
// `SSEFrame` is internal to RalphMobileServer and `@testable import` is not available in a release build, so this
// target compiles the server's own source file (SSEFrame.swift here is a symbolic link to
// Sources/RalphMobileServer/Fanout/SSEFrame.swift): the code measured is exactly the server's.
// Each benchmark iteration handles 1 000 real ralph events (scalingFactor .kilo): figures marked `*` are per event.
import Benchmark
import BenchCorpus
import NIOCore
import RalphAPI
import RalphFiles
import RalphMobileKit

let eventCount = 1_000

let benchmarks: @Sendable () -> Void = {
    let events: [RalphEvent] = Corpus.runFile(lines: eventCount).enumerated().compactMap {
        if case .event(let e) = EventLineDecoder.decode($0.element, id: $0.offset + 1) { return e }
        return nil
    }
    precondition(events.count == eventCount)
    let payloads: [[UInt8]] = events.map { JSONWriter.bytes(WorkflowPayload.object($0)) }

    Benchmark(
        "SSEFrame.event (encode 1 workflow frame from payload bytes)",
        configuration: .init(metrics: [.throughput, .wallClock, .cpuTotal, .mallocCountTotal], scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 10_000)
    ) { benchmark in
        for i in benchmark.scaledIterations {
            let event = events[i % eventCount]
            blackHole(SSEFrame.event(id: String(event.id), name: StreamEventName.workflow, data: payloads[i % eventCount]))
        }
    }

    Benchmark(
        "SSEFrame.workflow (RalphEvent → frame, payload JSON included)",
        configuration: .init(metrics: [.throughput, .wallClock, .cpuTotal, .mallocCountTotal], scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 10_000)
    ) { benchmark in
        for i in benchmark.scaledIterations {
            blackHole(SSEFrame.workflow(events[i % eventCount]))
        }
    }

    // The stream a client receives: preamble, then one frame per event, as one byte array.
    var stream: [UInt8] = Array(SSEFrame.preamble.readableBytesView)
    for event in events { stream += Array(SSEFrame.workflow(event).readableBytesView) }
    let streamBytes = stream

    Benchmark(
        "SSEParser.feed (1 event, 1 000-event stream in 16 KiB chunks)",
        configuration: .init(metrics: [.throughput, .wallClock, .cpuTotal, .mallocCountTotal], scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 10_000)
    ) { benchmark in
        var parser = SSEParser()
        var dispatched = 0
        var offset = 0
        while offset < streamBytes.count {
            let end = min(offset + 16_384, streamBytes.count)
            for output in parser.feed(streamBytes[offset..<end]) {
                if case .event = output { dispatched += 1 }
            }
            offset = end
        }
        precondition(dispatched == eventCount)
        blackHole(parser)
    }

    Benchmark(
        "SSEParser.feed (1 event, one frame per read)",
        configuration: .init(metrics: [.throughput, .wallClock, .cpuTotal, .mallocCountTotal], scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 10_000)
    ) { benchmark in
        var parser = SSEParser()
        for i in benchmark.scaledIterations {
            blackHole(parser.feed(frames[i % eventCount]))
        }
    }
}

let frames: [[UInt8]] = {
    Corpus.runFile(lines: eventCount).enumerated().compactMap {
        if case .event(let e) = EventLineDecoder.decode($0.element, id: $0.offset + 1) { return Array(SSEFrame.workflow(e).readableBytesView) }
        return nil
    }
}()
