import Foundation
import Testing

import RalphAPI

extension WireSamples {
    static let toolEvent = ToolEvent(
        turnId: turnID, toolUseId: "toolu_1", name: "Bash", input: ["command": "swift test"], output: "ok", isError: false,
        messageId: "m-2"
    )

    /// One event of each kind a conversation stream carries.
    static let events: [ChatEvent] = [
        .turnStart(TurnStartEvent(turnId: turnID, text: "Fix it", messageId: "m-1", origin: .user)),
        .chunk(ChunkEvent(turnId: turnID, text: "Looking")),
        .segmentEnd(SegmentEndEvent(turnId: turnID, messageId: "m-2")),
        .toolStart(ToolEvent(turnId: turnID, toolUseId: "toolu_1", name: "Bash", input: ["command": "swift test"])),
        .toolEnd(toolEvent),
        .permissionRequired(PermissionRequiredEvent(
            approvalId: "a-1", turnId: turnID, toolUseId: "toolu_1", toolName: "Bash", input: ["command": "rm -rf .build"],
            suggestions: [["type": "addRules"]], expiresAt: later, sessionRule: rule, description: "Clean", displayName: "Bash",
            blockedPath: "/work/proj/.build", reason: "outside the sandbox"
        )),
        .permissionResolved(PermissionResolvedEvent(approvalId: "a-1", decision: "allow", by: "admin key", message: "go")),
        .complete(CompleteEvent(
            turnId: turnID, sessionId: "s-1", costUsd: 0.125, usage: usage, durationMs: 5400, stopReason: "end_turn",
            messageId: "m-2"
        )),
        .error(ChatErrorEvent(turnId: turnID, message: "the agent exited", recoverable: true)),
        .titleUpdate(TitleUpdateEvent(title: "Fix the flaky test")),
        .status(StatusEvent(status: .stalled, turnId: turnID, silentSecs: 120, queued: 1, retry: retry)),
        .autoReply(progress),
        .permissions(PermissionsEvent(permissionMode: "plan", sessionRules: [])),
    ]

    /// The events of a conversation stream, one by one and as ``ChatEvent`` frames.
    static let chatEvents: [WireSample] = [
        WireSample(typeName: "ChatEvent", label: "every kind: name and data → decode → equal") {
            for event in events {
                let data = try event.encodedData(with: WireJSON.encoder())
                let decoded = try ChatEvent.decode(name: event.name, data: data)
                #expect(decoded == event, "\(event.name): \(String(decoding: data, as: UTF8.self))")
            }
            #expect(Set(events.map(\.name)).count == events.count, "one sample of each kind")
            #expect(try ChatEvent.decode(name: "a_later_kind", data: Data("{}".utf8)) == nil, "unknown names are skipped")
        },
        .codable(TurnStartEvent(turnId: turnID, text: "Keep going", messageId: nil, origin: .agent), "started by the agent"),
        .codable(ChunkEvent(turnId: turnID, text: "Looking")),
        .codable(SegmentEndEvent(turnId: turnID, messageId: "m-2")),
        .codable(toolEvent),
        .codable(PermissionRequiredEvent(approval)),
        .codable(PermissionResolvedEvent(approvalId: "a-1", decision: "deny", by: nil)),
        .codable(CompleteEvent(turnId: turnID, sessionId: nil, costUsd: nil, usage: TokenUsage(), durationMs: nil, stopReason: nil, messageId: nil)),
        .codable(ChatErrorEvent(turnId: nil, message: "cannot start the agent", recoverable: false)),
        .codable(TitleUpdateEvent(title: "Renamed")),
        .codable(StatusEvent(status: .idle, turnId: nil, queued: 0)),
        .codable(ConversationRemoved(id: conversationID)),
    ]
}
