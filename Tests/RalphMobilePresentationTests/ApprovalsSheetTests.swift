import Foundation
import RalphAPI
import Testing

@testable import RalphMobilePresentation

@Suite("The approval sheet: what it shows and the words of its buttons")
struct ApprovalsSheetTests {
    let now = ChatFixtures.now

    @Test("a Bash call: its command first with its own description, the path that made it ask, the exact rule on the session button")
    func bash() {
        let sheet = ChatFixtures.approvalSheet
        #expect(sheet.title == "Allow Bash?")
        #expect(sheet.meta(now: now) == "In Fix the flaky tests · asked 25s ago")
        #expect(sheet.prominent == ApprovalSheet.Prominent(label: "Command", text: "touch Sources/Clock.swift", note: "Create the clock file"))
        #expect(sheet.describedAs == nil, "the CLI's description only repeats the command's own")
        #expect(sheet.blockedPathLine == "Path that made it ask: /Users/ada/work/app/api/Sources/Clock.swift")
        #expect(!sheet.fullInputStartsExpanded)
        #expect(sheet.fullInput.contains("\"command\": \"touch Sources/Clock.swift\""))
        #expect(sheet.sessionButton.before == "Allow " && sheet.sessionButton.rule == "Bash(touch Sources/Clock.swift)" && sheet.sessionButton.after == " for this session")
        #expect(sheet.sessionButtonLabel == "Allow Bash(touch Sources/Clock.swift) for this session")
        #expect(sheet.sessionRuleAbove == nil)
        #expect(sheet.sessionHint.hasPrefix("Until it is revoked (Permissions, in the conversation), this exact command runs again without asking"))
        #expect(!sheet.sessionHint.contains("acceptEdits"), "the CLI's suggestions are never offered")
        #expect(sheet.canDecide && sheet.viewerNote == nil && sheet.stateLine == nil)
    }

    @Test("a file tool: the file first, the description with the tool's name, the scope in words for a file rule")
    func write() {
        let sheet = ApprovalSheet(ChatFixtures.writeApproval, canDecide: true)
        #expect(sheet.prominent?.label == "File" && sheet.prominent?.text == "/Users/ada/work/app/CHANGELOG.md")
        #expect(sheet.describedAs == "Write: CHANGELOG.md")
        #expect(sheet.scope == "Write on this same file")
        #expect(sheet.meta(now: now) == "asked 6m ago")
    }

    @Test("a long rule goes above the buttons and the button says what it covers in words")
    func longRule() {
        let sheet = ApprovalSheet(ChatFixtures.longRuleApproval, canDecide: true)
        #expect(sheet.sessionButton.rule == nil)
        #expect(sheet.sessionButtonLabel == "Allow this exact command for this session")
        #expect(sheet.sessionRuleAbove?.hasPrefix("Bash(swift test --filter") == true)
        #expect(sheet.meta(now: now) == "asked just now")
    }

    @Test("no rule, no prominent input: the generic words and the input open")
    func generic() {
        let approval = Approval(id: "x", conversationId: "c", turnId: "t", toolUseId: nil, toolName: "mcp__db__query", input: ["sql": "select 1"], createdAt: Timestamp.now())
        let sheet = ApprovalSheet(approval, canDecide: true)
        #expect(sheet.prominent == nil && sheet.fullInputStartsExpanded)
        #expect(sheet.sessionButtonLabel == "Allow for this session")
        #expect(sheet.sessionHint.hasPrefix("This call, and the same call again"))
        #expect(sheet.scope == "this exact mcp__db__query call")
        let empty = Approval(id: "y", conversationId: "c", turnId: "t", toolUseId: nil, toolName: "Tool", input: [:], createdAt: Timestamp.now())
        #expect(ApprovalSheet(empty, canDecide: true).fullInput == "(no input)")
    }

    @Test("viewers see the details without buttons; a decided approval says how it was decided")
    func viewerAndDecided() {
        let viewer = ApprovalSheet(ChatFixtures.approval, canDecide: false)
        #expect(viewer.title == "Bash" && !viewer.canDecide)
        #expect(viewer.viewerNote == "An operator has to answer this. Your key can only read.")
        let denied = ApprovalSheet(ChatFixtures.deniedApproval, canDecide: true)
        #expect(!denied.canDecide, "an answered approval cannot be answered again")
        #expect(denied.stateLine == "This call was denied by k_ops: “Not the build folder”.")
        var byRule = ChatFixtures.approval
        byRule.state = .allowed
        byRule.decision = .allow
        byRule.decidedBy = "rule r1"
        byRule.message = "allowed by the session rule Bash(touch Sources/Clock.swift)"
        #expect(ApprovalSheet(byRule, canDecide: true).stateLine == "Nobody was asked: this call was allowed by the session rule Bash(touch Sources/Clock.swift).")
    }

    @Test("the deny message: trimmed, empty means none, over 4096 bytes refused")
    func denyMessage() {
        #expect(ApprovalSheet.denyMessage("  not there \n") == "not there")
        #expect(ApprovalSheet.denyMessage("   ") == nil)
        #expect(ApprovalSheet.denyMessageProblem(String(repeating: "x", count: 4096)) == nil)
        #expect(ApprovalSheet.denyMessageProblem(String(repeating: "é", count: 2049)) == "The message is too long (at most 4096 bytes).")
        #expect(ApprovalSheet.decidedNotice(toolName: "Bash", decision: .allowSession) == "Bash allowed for the session.")
        #expect(ApprovalSheet.resolvedElsewhereNotice(toolName: "Bash", decision: "deny", by: "k_2") == "Bash was denied by k_2 elsewhere.")
        #expect(ApprovalSheet.resolvedElsewhereNotice(toolName: "Bash", decision: "cancelled", by: "system") == "Bash was cancelled (its turn ended) elsewhere.")
    }

    @Test("outcomes: answered and already answered close the sheet; a refused message or a failure keep it open")
    func outcomes() {
        #expect(ApprovalOutcome.decided(ChatFixtures.deniedApproval).closesSheet)
        #expect(ApprovalOutcome.alreadyAnswered("approval a1 is already decided").closesSheet)
        #expect(ApprovalOutcome.alreadyAnswered("x").message == "Already answered: x")
        #expect(!ApprovalOutcome.invalid("too long").closesSheet && !ApprovalOutcome.failed("offline").closesSheet)
    }
}
