import Foundation
import Testing

import RalphAPI

extension WireSamples {
    static let conversationID = "c-0d2e6f1a"
    static let turnID = "t-7d1e4b8a"
    static let usage = TokenUsage(inputTokens: 1200, outputTokens: 340, cacheCreationInputTokens: 10, cacheReadInputTokens: 50)
    static let rule = PermissionRule(toolName: "Bash", field: "command", value: "swift test", display: "Bash(swift test)")
    static let sessionRule = SessionRule(
        id: "r-1", rule: rule, approvalId: "a-1", grantedBy: "admin key", grantedAt: ts, uses: 2, lastUsedAt: later
    )
    static let retry = APIRetry(attempt: 2, maxRetries: 10, error: "overloaded", errorStatus: 529, retryDelayMs: 1500, at: ts)

    static let conversation = Conversation(
        id: conversationID, title: "Fix the flaky test", titleIsCustom: true, cwd: "/work/proj", backend: "claude",
        model: "opus", permissionMode: "default", pinned: true, archived: false, createdAt: ts, updatedAt: later,
        lastActivityAt: later, sessionId: "s-1", status: .retrying, processRunning: true, queued: 1, pendingApprovals: 1,
        messageCount: 4, totalCostUsd: 0.125, usage: usage, lastMessagePreview: "Running the tests…", agentVersion: "2.1.0",
        agentPermissionMode: "acceptEdits", sessionRules: [sessionRule], retry: retry
    )

    static let toolCall = ToolCall(
        toolUseId: "toolu_1", name: "Bash", input: ["command": "swift test"], output: "ok", isError: false, approvalId: "a-1"
    )

    static let message = ChatMessage(
        id: "m-2", conversationId: conversationID, turnId: turnID, role: .assistant, text: "Done.", toolCalls: [toolCall],
        createdAt: later, costUsd: 0.0625, usage: usage
    )

    static let approval = Approval(
        id: "a-1", conversationId: conversationID, turnId: turnID, toolUseId: "toolu_1", toolName: "Bash",
        input: ["command": "swift test", "timeout": 120], suggestions: [["type": "addRules"]], sessionRule: rule,
        description: "Run the tests", displayName: "Bash", blockedPath: "/work/proj/.build", reason: "outside the sandbox",
        state: .allowed, decision: .allowSession, message: "go", decidedBy: "admin key", createdAt: ts, decidedAt: later
    )

    /// Conversations, messages, turns, approvals and permissions.
    static let chat: [WireSample] = [
        .codable(conversation),
        .codable(Conversation(
            id: "c-2", title: "New conversation", cwd: "/work/proj", backend: "claude", createdAt: ts, updatedAt: ts,
            lastActivityAt: ts
        ), "defaults"),
        .codable(usage),
        .codable(
            FileDiff(
                path: "src/a.swift", movePath: "src/b.swift", kind: .move, diff: "--- a/src/a.swift\n+++ b/src/b.swift\n@@ -1,1 +1,1 @@\n-a\n+b\n",
                added: 1, removed: 1, truncated: true, omittedLines: 3, note: "n"
            )),
        .codable(FileDiff(path: "x.bin", kind: .update, diff: "Binary file x.bin changed\n", binary: true), "binary"),
        .codable(FileDiff(path: "/etc/passwd", kind: .update, error: "'/etc/passwd' is outside the workspace roots"), "error"),
        .codable(Page(items: [conversation], hasMore: true, nextCursor: "cursor-2", lastEventId: 9)),
        .codable(Page(items: [message], hasMore: false, nextCursor: nil), "messages, last page"),
        .codable(toolCall),
        .codable(message),
        .codable(Turn(
            id: turnID, conversationId: conversationID, text: "Fix it", state: .complete, createdAt: ts, startedAt: ts,
            endedAt: later, sessionId: "s-1", costUsd: 0.125, usage: usage, durationMs: 5400, stopReason: "end_turn",
            error: nil, origin: .agent
        )),
        .codable(approval),
        .codable(Approval(
            id: "a-2", conversationId: conversationID, turnId: turnID, toolUseId: nil, toolName: "Edit", input: .null,
            createdAt: ts
        ), "pending, defaults"),
        .codable(ApprovalDecisionRequest(decision: .deny, message: "not now", updatedInput: ["command": "ls"])),
        .codable(BatchApprovalRequest(ids: ["a-1", "a-2"], decision: .allow, message: "both")),
        .codable(BatchApprovalResult(id: "a-1", approval: approval, error: nil)),
        .codable(BatchApprovalResponse(results: [BatchApprovalResult(id: "a-3", approval: nil, error: "approval_not_found")])),
        .codable(ApprovalList(approvals: [approval])),
        .codable(CreateConversationRequest(title: "T", cwd: "/work/proj", backend: "claude", model: "opus", permissionMode: "plan")),
        .codable(PatchConversationRequest(title: "Renamed", pinned: false, archived: true)),
        .codable(SendMessageRequest(text: "and the docs", mode: .steer)),
        .codable(SendMessageResponse(turnId: turnID, queuedPosition: 2)),
        .codable(InterruptResponse(turnId: turnID)),
        .codable(rule),
        .codable(sessionRule),
        .codable(retry),
        .codable(PermissionsEvent(permissionMode: "acceptEdits", sessionRules: [sessionRule])),
        .codable(AgentInfo(name: "claude", command: "/usr/local/bin/claude", version: "2.1.0", permissionModes: ["default", "plan"], error: nil)),
        .codable(AgentInfo(name: "codex", command: "codex", version: nil, permissionModes: [], error: "not found"), "missing agent"),
    ]
        + WireSample.cases([ConversationStatus.idle, .running, .awaitingApproval, .stalled, .retrying])
        + WireSample.cases([MessageRole.user, .assistant, .system])
        + WireSample.cases([TurnState.queued, .running, .complete, .interrupted, .error])
        + WireSample.cases([TurnOrigin.user, .agent])
        + WireSample.cases([SendMode.queue, .steer])
        + WireSample.cases([ApprovalState.pending, .allowed, .denied, .cancelled])
        + WireSample.cases(ApprovalDecision.allCases)

    static let progress = AutoReplyProgress(
        conversationId: conversationID, mode: .hybrid, state: .paused, iterations: 3, maxIterations: 20, messages: 4,
        maxMessages: 10, elapsedSecs: 95, maxMinutes: 30, confidence: 0.75, stopReason: nil, pauseReason: .approval,
        detail: "waiting for an approval", startedAt: ts, updatedAt: later, pendingPrompt: "Continue."
    )

    static let settings = AutoReplySettings(
        enabled: true, mode: .hybrid, maxIterations: 12, maxMinutes: 30, maxMessages: 10, minConfidence: 0.625,
        stopOnError: false, requireConfirmation: true, allowOverride: false, showstopperDetection: false,
        nextPrompt: NextPrompt(strategy: .judge, text: "Continue."),
        judge: JudgeSettings(baseUrl: "http://127.0.0.1:11434/v1", model: "llama", apiKeyRef: "JUDGE_KEY", timeoutSecs: 12.5)
    )

    /// The auto-reply loop.
    static let autoReply: [WireSample] = [
        .codable(settings),
        .codable(AutoReplySettings(), "defaults"),
        .codable(NextPrompt()),
        .codable(JudgeSettings(baseUrl: "https://api.example.com/v1", model: "judge")),
        .codable(progress),
        .codable(AutoReplyStatus(settings: settings, progress: progress)),
        .codable(AutoResponseStartRequest(sessionId: conversationID, settings: settings)),
        .codable(AutoResponseProgressAlias(progress)),
    ]
        + WireSample.cases(AutoReplyMode.allCases)
        + WireSample.cases([AutoReplyState.running, .paused, .stopped])
        + WireSample.cases([
            AutoReplyReason.manual, .completion, .timeLimit, .messageLimit, .iterationLimit, .error, .showstopper, .stuck,
            .lowConfidence, .approval, .confirmation, .override, .restart, .deleted,
        ])
}
