import Foundation
import Testing

import RalphAPI

/// Samples of the issue-21 "control" slice: graceful and forced stops, hook suspension, the server's own pause.
extension WireSamples {
    static let suspension = Suspension(
        hookName: "ci-gate", phase: "pre.iteration.start", reason: "hook exited 2", suspendMode: "wait_for_resume", since: ts,
        loopId: "primary-20260205-080913"
    )

    static let control: [WireSample] = [
        .codable(StopRequest(kind: StopRequest.graceful, at: ts)),
        .codable(suspension),
        .codable(Suspension(hookName: "ci-gate", phase: "pre.iteration.start", reason: nil, suspendMode: "retry_backoff", since: nil), "minimal"),
        .codable(
            Session(
                id: session.id, iteration: 2, total: nil, hat: "builder", elapsedSecs: 30, mode: .suspended, status: .suspended, startedAt: ts,
                lastEventAt: later, eventCount: 5, taskName: nil, workspace: ".", path: ".ralph/events-20260205-080913.jsonl", pid: 4242,
                stopRequested: StopRequest(kind: StopRequest.graceful, at: later), suspension: suspension
            ),
            "suspended, stop pending"
        ),
        .codable(
            Session(
                id: session.id, iteration: 2, total: nil, hat: "builder", elapsedSecs: 30, mode: .paused, status: .paused, startedAt: ts,
                lastEventAt: later, eventCount: 5, taskName: nil, workspace: ".", path: ".ralph/events-20260205-080913.jsonl", pid: 4242,
                pausedBy: Session.pausedByServer
            ),
            "paused by the server"
        ),
        .codable(
            StopSessionResponse(
                status: "stopping", signal: nil, pid: 4242, terminated: false, kind: StopRequest.graceful, message: StopSessionResponse.gracefulMessage
            ),
            "graceful"
        ),
        .codable(StopSessionResponse(status: "stopped", signal: "SIGKILL", pid: nil, terminated: false, kind: StopRequest.forced), "forced"),
        .codable(StopSessionRequest(force: true)),
    ]
}
