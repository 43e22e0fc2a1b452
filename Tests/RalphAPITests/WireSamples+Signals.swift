import Foundation
import Testing

import RalphAPI

extension WireSamples {
    static let guidanceItem = GuidanceItem(
        text: "use the retry approach", sentAt: ts, eventId: 12, state: .acknowledged, ack: "Will follow: use the retry approach", ackedAt: later,
        ackEventId: 15
    )
    static let wave = WaveGroup(
        id: "w-0a1b2c3d", total: 3, done: 2, indices: [0, 2], hats: ["reviewer"], iteration: 4, events: 2, firstEventId: 20, lastEventId: 22,
        startedAt: ts, lastAt: later
    )
    static let checkin = RobotCheckin(
        iteration: 7, elapsedSeconds: 840, loopId: "primary-20260620-095959", timestamp: ts, currentHat: "builder", openTasks: 2, closedTasks: 5,
        cumulativeCost: 1.42
    )

    /// Guidance acks, waves, RObot web mode (ralph 2.9–2.10).
    static let signals: [WireSample] = [
        .codable(guidanceItem),
        .codable(GuidanceItem(text: "add tests", sentAt: nil, eventId: 3, state: .pending), "pending, optionals absent"),
        .codable(GuidanceState(rawValue: "a-state-from-a-newer-server"), "unknown value"),
        .codable(wave),
        .codable(WaveGroup(id: "w-1", total: 0, done: 0, indices: [], hats: [], iteration: nil, events: 1, firstEventId: 1, lastEventId: 1, startedAt: nil, lastAt: nil), "optionals absent"),
        .codable(checkin),
        .codable(RobotCheckin(iteration: nil, elapsedSeconds: nil, loopId: nil, timestamp: nil), "optionals absent"),
        .codable(
            PendingQuestion(
                id: "s-robot-3", questionText: "Merge now?", sessionId: "s", askedAt: ts, timeoutAt: later, timeoutEstimated: false, iteration: 7,
                hat: "reviewer", eventId: 40, source: "web"
            ), "web-mode question"
        ),
        .codable(
            SessionDetail(
                session: session, stopReason: nil, hatFlow: [], hatTransitions: 0, hatUsage: [],
                iterationStats: IterationStats(count: 0, current: 0, total: nil, averageDurationSecs: nil, estimatedRemainingSecs: nil),
                backpressure: nil, tokens: nil, recentToolCalls: [], recentEvents: [], pendingQuestion: nil, lineCount: 0, malformedLines: 0,
                guidance: [guidanceItem], waves: [wave], checkin: checkin
            ), "guidance, waves, check-in"
        ),
    ]
}
