import Foundation
import RalphAPI

/// Sample conversations, messages, approvals and auto-reply progress for the chat screens' `#Preview` blocks (and for
/// tests of the values built from them). Times are relative to ``now``.
public enum ChatFixtures {
    /// The moment the samples are relative to.
    public static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func ago(_ seconds: TimeInterval) -> String { Timestamp.format(now.addingTimeInterval(-seconds)) }

    // MARK: Conversations

    public static let conversations: [Conversation] = [
        Conversation(
            id: "c-pinned", title: "Release checklist", cwd: "/Users/ada/work/app", backend: "claude", pinned: true, createdAt: ago(86_400),
            updatedAt: ago(7200), lastActivityAt: ago(7200), status: .idle, messageCount: 12, totalCostUsd: 0.42,
            lastMessagePreview: "All release steps are done; the tag is pushed."
        ),
        Conversation(
            id: "c-running", title: "Fix the flaky tests", cwd: "/Users/ada/work/app/api", backend: "claude", model: "sonnet", createdAt: ago(3600),
            updatedAt: ago(20), lastActivityAt: ago(20), status: .awaitingApproval, processRunning: true, queued: 1, pendingApprovals: 2, messageCount: 6,
            totalCostUsd: 0.0831, lastMessagePreview: "Let me run the test suite again."
        ),
        Conversation(
            id: "c-retrying", title: "", cwd: "/Users/ada/work/site", backend: "claude", createdAt: ago(600), updatedAt: ago(45), lastActivityAt: ago(45),
            status: .retrying, processRunning: true, messageCount: 1,
            retry: APIRetry(attempt: 3, maxRetries: 10, error: "overloaded", errorStatus: 529, retryDelayMs: 2400, at: ago(45))
        ),
        Conversation(
            id: "c-archived", title: "Old spike", cwd: "/Users/ada/work/spike", backend: "claude", archived: true, createdAt: ago(900_000),
            updatedAt: ago(800_000), lastActivityAt: ago(800_000), messageCount: 40, totalCostUsd: 1.5
        ),
    ]

    // MARK: A conversation's messages

    public static let reply = """
        I found the problem: the test reads the clock **twice**, so it fails near midnight.

        ## The fix

        1. Read the time once in `setUp()`.
        2. Pass it to the code under test.

        ```swift
        let now = Date()
        let report = Report(at: now)
        ```

        See [the docs](https://example.com/clock) for more.
        """

    public static let messages: [ChatMessage] = [
        ChatMessage(id: "m1", conversationId: "c-running", turnId: "t1", role: .user, text: "Why does `testReport` fail at night?", createdAt: ago(300)),
        ChatMessage(
            id: "m2", conversationId: "c-running", turnId: "t1", role: .assistant, text: "Let me look at the test first.",
            toolCalls: [
                ToolCall(
                    toolUseId: "tu1", name: "Read", input: ["file_path": "Tests/ReportTests.swift"],
                    output: "import XCTest\n\nfinal class ReportTests: XCTestCase {\n    func testReport() { … }\n}", isError: false
                ),
                ToolCall(
                    toolUseId: "tu2", name: "Bash", input: ["command": "swift test --filter ReportTests", "description": "Run the report tests"],
                    output: String(repeating: "Test Case 'ReportTests.testReport' passed (0.001 seconds).\n", count: 120), isError: false
                ),
            ],
            createdAt: ago(290)
        ),
        ChatMessage(
            id: "m3", conversationId: "c-running", turnId: "t1", role: .assistant, text: reply, createdAt: ago(280), costUsd: 0.0123,
            usage: TokenUsage(inputTokens: 1200, outputTokens: 340)
        ),
        ChatMessage(
            id: "m4", conversationId: "c-running", turnId: "t2", role: .system,
            text: "A background task finished: the sub-agent says the nightly build is green.", createdAt: ago(120)
        ),
        ChatMessage(
            id: "m5", conversationId: "c-running", turnId: "t2", role: .assistant, text: "Good news: the nightly build passed.", createdAt: ago(110),
            costUsd: 0.004, usage: TokenUsage(inputTokens: 400, outputTokens: 30)
        ),
        ChatMessage(id: "m6", conversationId: "c-running", turnId: "t3", role: .user, text: "Apply the fix and run the tests.", createdAt: ago(30)),
        ChatMessage(
            id: "m7", conversationId: "c-running", turnId: "t3", role: .assistant, text: "Applying it now.",
            toolCalls: [ToolCall(toolUseId: "tu3", name: "Bash", input: ["command": "touch Sources/Clock.swift", "description": "Create the clock file"])],
            createdAt: ago(25)
        ),
    ]

    /// The reply being written in the running turn.
    public static let streamingText = "Running the tests now:\n\n```sh\nswift test --filter Report"

    // MARK: Approvals

    public static let approval = Approval(
        id: "a1", conversationId: "c-running", turnId: "t3", toolUseId: "tu3", toolName: "Bash",
        input: ["command": "touch Sources/Clock.swift", "description": "Create the clock file"],
        suggestions: [["type": "setMode", "mode": "acceptEdits", "destination": "session"]],
        sessionRule: PermissionRule(toolName: "Bash", field: "command", value: "touch Sources/Clock.swift", display: "Bash(touch Sources/Clock.swift)"),
        description: "Create the clock file", displayName: "Bash", blockedPath: "/Users/ada/work/app/api/Sources/Clock.swift", createdAt: ago(25)
    )

    public static let writeApproval = Approval(
        id: "a2", conversationId: "c-pinned", turnId: "t9", toolUseId: "tu9", toolName: "Write",
        input: ["file_path": "/Users/ada/work/app/CHANGELOG.md", "content": "## 1.2.0\n- Nightly clock fix\n"],
        sessionRule: PermissionRule(toolName: "Write", field: "file_path", value: "CHANGELOG.md", display: "Write(CHANGELOG.md)"),
        description: "CHANGELOG.md", createdAt: ago(400)
    )

    public static let longRuleApproval = Approval(
        id: "a3", conversationId: "c-running", turnId: "t3", toolUseId: "tu4", toolName: "Bash",
        input: ["command": "swift test --filter 'ReportTests|ClockTests|CalendarTests|TimeZoneTests' --parallel --num-workers 4"],
        sessionRule: PermissionRule(
            toolName: "Bash", field: "command", value: "swift test --filter 'ReportTests|ClockTests|CalendarTests|TimeZoneTests' --parallel --num-workers 4",
            display: "Bash(swift test --filter 'ReportTests|ClockTests|CalendarTests|TimeZoneTests' --parallel --num-workers 4)"
        ),
        createdAt: ago(5)
    )

    public static let deniedApproval = Approval(
        id: "a4", conversationId: "c-pinned", turnId: "t8", toolUseId: "tu8", toolName: "Bash", input: ["command": "rm -rf build"], state: .denied,
        decision: .deny, message: "Not the build folder", decidedBy: "k_ops", createdAt: ago(5000), decidedAt: ago(4900)
    )

    public static let sessionRules: [SessionRule] = [
        SessionRule(
            id: "r1", rule: PermissionRule(toolName: "Bash", field: "command", value: "swift test", display: "Bash(swift test)"), approvalId: "a0",
            grantedBy: "k_me", grantedAt: ago(1800), uses: 3, lastUsedAt: ago(60)
        ),
        SessionRule(
            id: "r2", rule: PermissionRule(toolName: "Edit", field: "file_path", value: "Sources/Clock.swift", display: "Edit(Sources/Clock.swift)"),
            approvalId: "a5", grantedBy: "k_ops", grantedAt: ago(900)
        ),
    ]

    // MARK: Auto-reply

    public static func progress(_ state: AutoReplyState, mode: AutoReplyMode = .hybrid) -> AutoReplyProgress {
        AutoReplyProgress(
            conversationId: "c-running", mode: mode, state: state, iterations: 3, maxIterations: 20, messages: 2, maxMessages: 10, elapsedSecs: 65,
            maxMinutes: 120, confidence: 0.42, stopReason: state == .stopped ? .messageLimit : nil, pauseReason: state == .paused ? .showstopper : nil,
            detail: state == .paused ? "asks for a password" : nil, startedAt: ago(65), updatedAt: ago(0),
            pendingPrompt: nil
        )
    }

    // MARK: Values the previews show

    public static var turns: [ChatTurn] {
        ChatTranscript.turns(
            ChatTranscript.Input(
                messages: messages, streamingText: streamingText, currentTurnID: "t3", isBusy: true, pendingApprovals: [approval],
                decisions: ["tu2": ChatToolDecision(decision: "allow_session", decidedBy: "k_me", message: nil)]
            )
        )
    }

    @MainActor
    public static var rows: [ConversationRow] { conversations.map(ConversationRow.init) }

    public static var approvalSheet: ApprovalSheet { ApprovalSheet(approval, canDecide: true, conversationTitle: "Fix the flaky tests") }

    public static var permissionsPanel: ChatPermissionsPanel {
        ChatPermissionsPanel(agentMode: "acceptEdits", createdMode: "default", agentVersion: "2.1.330", rules: sessionRules, me: "k_me", canRevoke: true)
    }

    public static var statusBar: AutoReplyStatusBar { AutoReplyStatusBar(progress: progress(.running), fraction: 0.3, canControl: true) }

    public static var approvalRows: [ApprovalRow] {
        [
            ApprovalRow(approval, title: "Fix the flaky tests", selected: true), ApprovalRow(writeApproval, title: "Release checklist", selected: false),
            ApprovalRow(deniedApproval, title: "Release checklist", selected: false),
        ]
    }

    public static var batchConfirmation: ApprovalBatchConfirmation {
        ApprovalBatchConfirmation(
            decision: .deny, title: "Deny 2 tool calls?",
            lines: ["Bash  touch Sources/Clock.swift · Fix the flaky tests", "Write  /Users/ada/work/app/CHANGELOG.md · Release checklist"],
            asksForMessage: true, confirmLabel: "Deny all"
        )
    }

    public static var header: ChatHeader {
        ChatHeader(conversation: conversations[1], info: nil, status: .awaitingApproval, connection: .connected, reconnects: 0)
    }
}
