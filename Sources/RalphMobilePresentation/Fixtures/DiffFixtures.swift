import Foundation
import RalphAPI

/// Sample diffs of file edits, an edit's approval and its applied tool call, and the agents of a server, for the diff
/// view's and the new-conversation form's `#Preview` blocks (and the tests of the values built from them).
public enum DiffFixtures {
    /// An Edit of a Swift file: a doc comment and a function replaced, ending without a newline.
    public static let swiftEdit = FileDiff(
        path: "/Users/ada/work/app/api/Sources/Clock.swift", kind: .update,
        diff: [
            "--- a/Sources/Clock.swift", "+++ b/Sources/Clock.swift", "@@ -1,5 +1,7 @@", " import Foundation", " ", "-/// The current time.",
            "-func now() -> Date { Date() }", "+/// The current time, read once per report.", "+func now(_ clock: () -> Date = { Date() }) -> Date {",
            "+    clock() // \"now\"", "+}", " let limit = 42", "\\ No newline at end of file",
        ].joined(separator: "\n") + "\n",
        added: 4, removed: 2
    )

    /// A new Python file.
    public static let pythonAdd = FileDiff(
        path: "scripts/report.py", kind: .add,
        diff: "--- /dev/null\n+++ b/scripts/report.py\n@@ -0,0 +1,3 @@\n+def report(days=7):\n+    # the last week\n+    return f\"{days} days\"\n",
        added: 3
    )

    /// An edit whose text is no longer in the file: no diff, only why.
    public static let failedEdit = FileDiff(
        path: "/Users/ada/work/app/README.md", kind: .update, error: "the text to replace is not in the file as it is now"
    )

    /// A binary file written.
    public static let binaryWrite = FileDiff(path: "Assets/logo.png", kind: .update, diff: "Binary file Assets/logo.png changed\n", binary: true)

    /// A long diff the server cut.
    public static let truncated = FileDiff(
        path: "Sources/Big.swift", kind: .update,
        diff: "--- a/Sources/Big.swift\n+++ b/Sources/Big.swift\n@@ -10,2 +10,2 @@\n-let a = 1\n+let a = 2\n let b = 3\n", added: 40, removed: 38,
        truncated: true, omittedLines: 1234
    )

    /// An Edit waiting for approval, with what it will change.
    public static let editApproval = Approval(
        id: "a-edit", conversationId: "c-running", turnId: "t3", toolUseId: "tu-edit", toolName: "Edit",
        input: ["file_path": "/Users/ada/work/app/api/Sources/Clock.swift", "old_string": "func now() -> Date { Date() }", "new_string": "func now(…)"],
        sessionRule: PermissionRule(toolName: "Edit", field: "file_path", value: "Sources/Clock.swift", display: "Edit(Sources/Clock.swift)"),
        diffs: [swiftEdit], createdAt: ChatFixtures.ago(15)
    )

    /// Codex's apply_patch of two files, waiting for approval.
    public static let patchApproval = Approval(
        id: "a-patch", conversationId: "c-codex", turnId: "t1", toolUseId: "call-1", toolName: "apply_patch",
        input: ["paths": ["Sources/Clock.swift", "scripts/report.py"]],
        sessionRule: PermissionRule(
            toolName: "apply_patch", field: "paths", value: ["Sources/Clock.swift", "scripts/report.py"],
            display: "apply_patch(Sources/Clock.swift, scripts/report.py)"
        ),
        diffs: [swiftEdit, pythonAdd], createdAt: ChatFixtures.ago(40)
    )

    /// The Edit once it ran: its output and what it changed.
    public static let appliedEdit = ToolCall(
        toolUseId: "tu-edit", name: "Edit", input: editApproval.input, output: "The file Sources/Clock.swift has been updated.", isError: false,
        diffs: [swiftEdit]
    )

    /// A server's agents: Claude Code, and Codex whose CLI is not installed.
    public static let agents = [
        AgentInfo(
            name: "claude", command: "claude", version: "2.1.330", permissionModes: ["acceptEdits", "auto", "bypassPermissions", "dontAsk", "plan"],
            error: nil
        ),
        AgentInfo(name: "codex", command: "codex", version: nil, permissionModes: ["untrusted", "on-request", "never"], error: "not found on PATH"),
    ]

    /// A conversation that runs Codex.
    public static let codexConversation = Conversation(
        id: "c-codex", title: "Port the report script", cwd: "/Users/ada/work/app", backend: "codex", createdAt: ChatFixtures.ago(600),
        updatedAt: ChatFixtures.ago(40), lastActivityAt: ChatFixtures.ago(40), status: .awaitingApproval, pendingApprovals: 1
    )
}
