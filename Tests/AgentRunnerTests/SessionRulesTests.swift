import Foundation
import RalphAPI
import Testing

@testable import AgentRunner

/// "Allow for this session": exactly what the sheet showed, kept by the server, never a mode or a directory.
@Suite("Session rules")
struct SessionRulesTests {
    typealias T = ConversationMachineTests

    /// What the real CLI 2.1.330 suggests for `touch newfile` in /w: a prefix rule for the project's settings, the
    /// directory, and accept-edits mode.
    static let suggestions: JSONValue = [
        ["type": "addRules", "rules": [["toolName": "Bash", "ruleContent": "touch newfile *"]], "behavior": "allow", "destination": "localSettings"],
        ["type": "addDirectories", "directories": ["/w"], "destination": "session"],
        ["type": "setMode", "mode": "acceptEdits", "destination": "session"],
    ]

    static func bash(_ command: String, id: String) -> AgentEvent {
        .permissionRequest(
            AgentPermissionRequest(
                requestID: id, toolName: "Bash", input: ["command": .string(command), "description": "Run it"], toolUseID: "toolu_\(id)",
                suggestions: suggestions, blockedPath: "/w/newfile", description: "Run it", displayName: "Bash"
            )
        )
    }

    static func write(_ path: String, id: String) -> AgentEvent {
        .permissionRequest(
            AgentPermissionRequest(
                requestID: id, toolName: "Write", input: ["file_path": .string(path), "content": "x"], toolUseID: "toolu_\(id)",
                suggestions: [["type": "setMode", "mode": "acceptEdits", "destination": "session"]]
            )
        )
    }

    /// A running machine where `touch newfile` was allowed for the session.
    static func granted() throws -> ConversationMachine {
        var m = T.running()
        _ = m.handle(bash("touch newfile", id: "r1"), now: T.at(1))
        let id = try #require(m.pendingApprovalIDs.first)
        _ = try m.decide(approvalID: id, decision: .allowSession, message: nil, updatedInput: nil, by: "k1", now: T.at(2))
        return m
    }

    @Test("the approval offers the narrowest rule: the exact command, shown as the sheet shows it")
    func offeredRule() throws {
        var m = T.running()
        let asked = m.handle(Self.bash("touch newfile", id: "r1"), now: T.at(1))
        guard case .permissionRequired(let event)? = T.events(asked).first else {
            Issue.record("no permission_required")
            return
        }
        #expect(event.sessionRule?.display == "Bash(touch newfile)")
        #expect(event.description == "Run it")
        #expect(event.blockedPath == "/w/newfile")
        #expect(event.displayName == "Bash")
    }

    @Test("allow for the session tells the agent only to run this call: no rule, no directory, no mode")
    func nothingGoesToTheAgent() throws {
        var m = T.running()
        _ = m.handle(Self.bash("touch newfile", id: "r1"), now: T.at(1))
        let id = try #require(m.pendingApprovalIDs.first)
        let (approval, actions) = try m.decide(approvalID: id, decision: .allowSession, message: nil, updatedInput: nil, by: "k1", now: T.at(2))
        #expect(T.commands(actions) == [.allow(requestID: "r1", input: ["command": "touch newfile", "description": "Run it"])])
        #expect(approval.decision == .allowSession)
        #expect(m.conversation.sessionRules.map(\.rule.display) == ["Bash(touch newfile)"])
        #expect(m.conversation.sessionRules.first?.grantedBy == "k1")
        #expect(m.conversation.sessionRules.first?.approvalId == id)
        #expect(T.names(actions).contains("permissions"))
        #expect(m.conversation.agentPermissionMode == nil, "no mode change")
    }

    @Test("a later call the rule covers is allowed at once and recorded; any other call asks")
    func ruleCoversOnlyItsCalls() throws {
        var m = try Self.granted()
        let again = m.handle(Self.bash("touch newfile", id: "r2"), now: T.at(3))
        #expect(T.commands(again) == [.allow(requestID: "r2", input: ["command": "touch newfile", "description": "Run it"])])
        #expect(!T.names(again).contains("permission_required"))
        guard case .permissionResolved(let resolved)? = T.events(again).first(where: { $0.name == "permission_resolved" }) else {
            Issue.record("the automatic allow is not announced")
            return
        }
        let rule = try #require(m.conversation.sessionRules.first)
        #expect(resolved.by == "rule \(rule.id)")
        #expect(rule.uses == 1)
        let saved = again.compactMap { if case .save(.approval(let a)) = $0 { a } else { nil } }
        #expect(saved.first?.state == .allowed && saved.first?.decidedBy == "rule \(rule.id)")
        #expect(m.pendingApprovalIDs.isEmpty)

        for (i, other) in [
            Self.bash("touch newfile; rm -rf ~", id: "o1"), Self.bash("touch newfile2", id: "o2"), Self.bash("rm newfile", id: "o3"),
            Self.write("/w/notes.md", id: "o4"),
        ].enumerated() {
            let asked = m.handle(other, now: T.at(4 + Double(i)))
            #expect(T.names(asked).contains("permission_required"), "call \(i) must ask")
            #expect(T.commands(asked).isEmpty)
        }
        #expect(m.pendingApprovalIDs.count == 4)
    }

    @Test("file tools: a rule covers the same file only, shown relative to the working directory")
    func fileRule() throws {
        var m = T.running()
        _ = m.handle(Self.write("/w/Sources/App.swift", id: "r1"), now: T.at(1))
        let id = try #require(m.pendingApprovalIDs.first)
        _ = try m.decide(approvalID: id, decision: .allowSession, message: nil, updatedInput: nil, by: "local", now: T.at(2))
        #expect(m.conversation.sessionRules.map(\.rule.display) == ["Write(Sources/App.swift)"])
        #expect(!T.commands(m.handle(Self.write("/w/Sources/App.swift", id: "r2"), now: T.at(3))).isEmpty)
        #expect(T.names(m.handle(Self.write("/w/Sources/Other.swift", id: "r3"), now: T.at(4))).contains("permission_required"))
    }

    @Test("revoking a rule makes its calls ask again; an unknown rule is refused")
    func revoke() throws {
        var m = try Self.granted()
        let rule = try #require(m.conversation.sessionRules.first)
        let (revoked, actions) = try m.revokeRule(id: rule.id, now: T.at(3))
        #expect(revoked.id == rule.id)
        #expect(m.conversation.sessionRules.isEmpty)
        guard case .permissions(let event)? = T.events(actions).first else {
            Issue.record("no permissions event")
            return
        }
        #expect(event.sessionRules.isEmpty)
        #expect(T.names(m.handle(Self.bash("touch newfile", id: "r2"), now: T.at(4))).contains("permission_required"))
        #expect(throws: ConversationMachine.Refusal.ruleNotFound(id: rule.id)) { try m.revokeRule(id: rule.id, now: T.at(5)) }
    }

    @Test("a grant answers the other pending calls it covers, and only those")
    func grantAnswersPendingTwins() throws {
        var m = T.running()
        _ = m.handle(Self.bash("make test", id: "r1"), now: T.at(1))
        _ = m.handle(Self.bash("make test", id: "r2"), now: T.at(1))
        _ = m.handle(Self.bash("make clean", id: "r3"), now: T.at(1))
        #expect(m.pendingApprovalIDs.count == 3)
        let first = try #require(m.pendingApprovalIDs.sorted().first)
        let (_, actions) = try m.decide(approvalID: first, decision: .allowSession, message: nil, updatedInput: nil, by: "local", now: T.at(2))
        let allowed = Set(T.commands(actions).compactMap { if case .allow(let id, _) = $0 { id } else { nil } })
        #expect(allowed == ["r1", "r2"])
        #expect(m.pendingApprovalIDs.count == 1)
        #expect(m.conversation.pendingApprovals == 1)
    }

    @Test("rules survive a new agent process: they live with the conversation, not in the agent")
    func rulesSurviveRestart() throws {
        var m = try Self.granted()
        _ = m.handle(.result(AgentTurnResult(subtype: "success", isError: false, sessionID: "s1", totalCostUSD: 0.01)), now: T.at(3))
        _ = m.processExited(.exited(0), stderr: "", now: T.at(4))
        _ = m.send(text: "again", mode: .queue, now: T.at(5))
        _ = m.processStarted(now: T.at(6))
        #expect(!T.commands(m.handle(Self.bash("touch newfile", id: "r9"), now: T.at(7))).isEmpty)
    }

    @Test("a rule for any other tool covers only the same input, whatever order its keys come in")
    func wholeInputRule() {
        let rule = PermissionRule.narrowest(toolName: "mcp__db__query", input: ["sql": "select 1", "db": "main"], cwd: "/w")
        #expect(rule.field == nil)
        #expect(rule.display == "mcp__db__query (this exact input)")
        #expect(rule.matches(toolName: "mcp__db__query", input: ["db": "main", "sql": "select 1"]))
        #expect(!rule.matches(toolName: "mcp__db__query", input: ["db": "main", "sql": "drop table x"]))
        #expect(!rule.matches(toolName: "mcp__db__other", input: ["db": "main", "sql": "select 1"]))
        // A known tool whose key field is missing or not a string falls back to the whole input.
        #expect(PermissionRule.narrowest(toolName: "Bash", input: ["command": 5], cwd: "/w").field == nil)
        #expect(PermissionRule.narrowest(toolName: "Read", input: ["file_path": "/etc/hosts"], cwd: "/w").display == "Read(/etc/hosts)")
    }

    @Test("Codex: a shell rule is the exact command; an apply_patch rule is the exact set of files, whatever the patch says")
    func codexRules() {
        let shell = PermissionRule.narrowest(toolName: "shell", input: ["command": "swift test", "cwd": "/w"], cwd: "/w")
        #expect(shell.display == "shell(swift test)" && shell.matches(toolName: "shell", input: ["command": "swift test", "cwd": "/w/sub"]))
        #expect(!shell.matches(toolName: "shell", input: ["command": "swift test; rm -rf ~"]))
        let patch = PermissionRule.narrowest(toolName: "apply_patch", input: ["paths": ["/w/a.txt", "/w/b/c.txt"], "changes": []], cwd: "/w")
        #expect(patch.display == "apply_patch(a.txt, b/c.txt)")
        #expect(patch.matches(toolName: "apply_patch", input: ["paths": ["/w/a.txt", "/w/b/c.txt"], "changes": [["diff": "other"]]]))
        #expect(!patch.matches(toolName: "apply_patch", input: ["paths": ["/w/a.txt"], "changes": []]))
        #expect(!patch.matches(toolName: "apply_patch", input: ["paths": ["/w/a.txt", "/w/b/c.txt", "/etc/passwd"], "changes": []]))
    }
}
