import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

@Suite("Run state fold: iterations and hat usage")
struct RunStateIterationTests {
    private static let iterationLines = [
        taskStart("planner"),
        record(t(30), 1, "planner", "plan.step"),
        record(t(60), 1, "planner", "plan.ready", triggered: "builder"),
        record(t(120), 2, "builder", "build.done", triggered: "reviewer"),
        emit("build.note", t(150)),
        record(t(300), 3, "reviewer", "review.approved"),
    ]

    @Test("iterations start at the previous record, end at their last record and count their records")
    func iterations() throws {
        let state = foldLines(Self.iterationLines)
        #expect(state.iterations.map(\.number) == [1, 2, 3])
        #expect(state.iterations.map(\.hat) == ["planner", "builder", "reviewer"])
        #expect(state.iterations.map(\.eventCount) == [2, 1, 1])
        // The start as written is kept only when it is not a timestamp; a parsed one is in startDate.
        #expect(state.iterations.map(\.startedAt) == [nil, nil, nil])
        #expect(state.iterations.map(\.startDate) == [base, base + 60, base + 120].map { Date(timeIntervalSince1970: $0) })
        #expect(state.iterations.map(\.endDate) == [base + 60, base + 120, base + 300].map { Date(timeIntervalSince1970: $0) })
    }

    @Test("iterationItems gives numbers, hats, start times and durations in seconds")
    func iterationItems() {
        let items = foldLines(Self.iterationLines).iterationItems()
        #expect(
            items == [
                IterationItem(number: 1, hat: "planner", startedAt: z(0), durationSecs: 60, eventCount: 2),
                IterationItem(number: 2, hat: "builder", startedAt: z(60), durationSecs: 60, eventCount: 1),
                IterationItem(number: 3, hat: "reviewer", startedAt: z(120), durationSecs: 180, eventCount: 1),
            ]
        )
    }

    @Test("iterationStats averages durations and estimates the rest only for live runs with a larger total")
    func iterationStats() {
        let state = foldLines(Self.iterationLines)
        #expect(
            state.iterationStats(total: 10, live: true)
                == IterationStats(count: 3, current: 3, total: 10, averageDurationSecs: 100, estimatedRemainingSecs: 700)
        )
        #expect(state.iterationStats(total: 10, live: false).estimatedRemainingSecs == nil)
        #expect(state.iterationStats(total: 10, live: false).averageDurationSecs == 100)
        #expect(state.iterationStats(total: nil, live: true).estimatedRemainingSecs == nil)
        #expect(state.iterationStats(total: 3, live: true).estimatedRemainingSecs == nil)
        #expect(state.iterationStats(total: 4, live: true).estimatedRemainingSecs == 100)
    }

    @Test("hat usage counts iterations and records per hat, never the loop pseudo-hat")
    func hatUsage() {
        let state = foldLines(Self.iterationLines)
        #expect(
            state.hatUsageList() == [
                HatUsage(hat: "builder", iterations: 1, events: 1),
                HatUsage(hat: "planner", iterations: 1, events: 2),
                HatUsage(hat: "reviewer", iterations: 1, events: 1),
            ]
        )
        #expect(state.hatUsage["loop"] == nil)
    }

    /// Iteration 1 opened by a loop record, then the builder's first record in it.
    private static let loopOpenedLines = [
        taskStart("builder"),
        record(t(10), 1, "loop", "event.orphaned"),
        record(t(20), 1, "builder", "build.done"),
    ]

    @Test("an iteration opened by a loop record takes the hat of its first real record")
    func iterationHatFilledLater() {
        let state = foldLines(Self.loopOpenedLines)
        #expect(state.iterations.map(\.hat) == ["builder"])
        #expect(state.iterations.first?.eventCount == 1)  // the loop record is not work of the iteration
        #expect(state.hatUsage["builder"]?.events == 1)
    }

    @Test("a loop record (loop.terminate) ends the last iteration without counting as its work")
    func loopRecordEndsIteration() throws {
        let state = foldLines([
            taskStart("builder"),
            record(t(60), 1, "builder", "build.done", triggered: "builder"),
            record(t(90), 2, "builder", "build.done"),
            record(t(100), 2, "loop", "loop.terminate", payload: "## Reason\ncompleted"),
        ])
        #expect(state.iterations.map(\.number) == [1, 2])
        #expect(state.iterations.map(\.eventCount) == [1, 1])
        #expect(state.iterationItems().map(\.durationSecs) == [60, 40])
        #expect(state.iteration == 2)
        #expect(state.termination?.reason == "completed")
    }

    @Test("a hat filled into an iteration opened by a loop record counts in hat usage")
    func iterationHatFilledLaterCountsInHatUsage() {
        #expect(foldLines(Self.loopOpenedLines).hatUsageList() == [HatUsage(hat: "builder", iterations: 1, events: 1)])
    }

    @Test("records of iteration 0 do not make an iteration")
    func iterationZero() {
        let state = foldLines([
            taskStart("planner"),
            record(t(5), 0, "planner", "plan.start"),
        ])
        #expect(state.iterations.isEmpty)
        #expect(state.iteration == 0)
        #expect(state.hatUsage["planner"]?.events == 1)
        #expect(state.hatUsage["planner"]?.iterations == 0)
    }
}
