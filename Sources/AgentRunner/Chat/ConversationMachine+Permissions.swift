import Foundation
import RalphAPI

/// Approvals and session rules.
///
/// "Allow for this session" is kept here, never handed to the agent: the agent is told only to run the call at hand
/// (its own suggestions — a rule for every similar command in the project's settings, the working directory, the
/// `acceptEdits` mode — are never sent back). Later requests that match a rule the person granted are answered at once
/// and recorded as allowed by that rule, so the grant covers exactly what the sheet showed, survives the agent
/// process being restarted, and ends the moment it is revoked.
extension ConversationMachine {
    /// A person's answer to a pending approval.
    public mutating func decide(
        approvalID: String, decision: ApprovalDecision, message: String?, updatedInput: JSONValue?, by: String, now: Date
    ) throws(Refusal) -> (approval: Approval, actions: [Action]) {
        guard let slot = slot(holding: approvalID), var turn = self[slot], var pending = turn.pending[approvalID] else {
            throw .approvalNotPending(id: approvalID)
        }
        let stamp = Timestamp.format(now)
        var actions: [Action] = []
        pending.approval.state = decision == .deny ? .denied : .allowed
        pending.approval.decision = decision
        pending.approval.message = message
        pending.approval.decidedBy = by
        pending.approval.decidedAt = stamp
        turn.pending[approvalID] = nil
        // Time spent waiting for a person is not silence.
        turn.lastOutput = now
        turn.stalled = false
        self[slot] = turn
        let approval = pending.approval
        actions.append(.save(.approval(approval)))
        actions.append(.emit(.permissionResolved(PermissionResolvedEvent(approvalId: approvalID, decision: decision.rawValue, by: by, message: message))))
        switch decision {
        case .allow:
            actions.append(.send(.allow(requestID: pending.requestID, input: updatedInput ?? approval.input)))
        case .allowSession:
            actions.append(.send(.allow(requestID: pending.requestID, input: updatedInput ?? approval.input)))
            actions += grant(approval, by: by, now: now)
        case .deny:
            let text = message.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 } ?? AgentCommand.defaultDenial
            actions.append(.send(.deny(requestID: pending.requestID, message: text, interrupt: false)))
        }
        actions += settle(now: now)
        return (approval, actions)
    }

    /// Revokes a session rule: from now on the calls it covered ask again.
    public mutating func revokeRule(id: String, now: Date) throws(Refusal) -> (rule: SessionRule, actions: [Action]) {
        guard let index = conversation.sessionRules.firstIndex(where: { $0.id == id }) else { throw .ruleNotFound(id: id) }
        let rule = conversation.sessionRules.remove(at: index)
        conversation.updatedAt = Timestamp.format(now)
        return (rule, [.save(.conversation(conversation)), permissionsChanged()])
    }

    /// A `can_use_tool` request of the turn: answered at once when a session rule covers it, else a pending approval.
    mutating func permissionRequested(_ turn: inout Current, _ request: AgentPermissionRequest, now: Date) -> [Action] {
        var approval = Approval(
            id: makeID("a"), conversationId: conversation.id, turnId: turn.turn.id, toolUseId: request.toolUseID, toolName: request.toolName,
            input: request.input, suggestions: request.suggestions,
            sessionRule: PermissionRule.narrowest(toolName: request.toolName, input: request.input, cwd: conversation.cwd),
            description: request.description, displayName: request.displayName, blockedPath: request.blockedPath, reason: request.decisionReason,
            diffs: request.diffs, createdAt: Timestamp.format(now)
        )
        if turn.interruptRequested != nil {
            // Being interrupted: nothing more may run.
            return [.send(.deny(requestID: request.requestID, message: "The turn was interrupted.", interrupt: true))]
        }
        var actions = link(&turn, toolUseID: request.toolUseID, approvalID: approval.id)
        if let index = conversation.sessionRules.firstIndex(where: { $0.rule.matches(toolName: request.toolName, input: request.input) }) {
            actions += allowByRule(&approval, ruleIndex: index, now: now)
            actions.append(permissionsChanged())
            actions.append(.send(.allow(requestID: request.requestID, input: request.input)))
            return actions
        }
        turn.pending[approval.id] = PendingApproval(requestID: request.requestID, approval: approval)
        actions.append(.save(.approval(approval)))
        actions.append(.emit(.permissionRequired(PermissionRequiredEvent(approval))))
        return actions
    }

    /// Adds the approval's rule to the conversation, then answers the other pending approvals it covers.
    mutating func grant(_ approval: Approval, by: String, now: Date) -> [Action] {
        let rule = approval.sessionRule ?? PermissionRule.narrowest(toolName: approval.toolName, input: approval.input, cwd: conversation.cwd)
        var actions: [Action] = []
        if !conversation.sessionRules.contains(where: { $0.rule == rule }) {
            conversation.sessionRules.append(
                SessionRule(id: makeID("r"), rule: rule, approvalId: approval.id, grantedBy: by, grantedAt: Timestamp.format(now))
            )
        }
        guard let index = conversation.sessionRules.firstIndex(where: { $0.rule == rule }) else { return actions }
        for slot in [Slot.ours, .agent] {
            guard var turn = self[slot] else { continue }
            for id in turn.pending.keys.sorted() {
                guard var pending = turn.pending[id], rule.matches(toolName: pending.approval.toolName, input: pending.approval.input) else { continue }
                turn.pending[id] = nil
                actions += allowByRule(&pending.approval, ruleIndex: index, now: now)
                actions.append(.send(.allow(requestID: pending.requestID, input: pending.approval.input)))
            }
            self[slot] = turn
        }
        actions.append(.save(.conversation(conversation)))
        actions.append(permissionsChanged())
        return actions
    }

    /// Records `approval` as allowed by the session rule at `ruleIndex` and counts the use (the caller announces the
    /// rules once the step is done).
    mutating func allowByRule(_ approval: inout Approval, ruleIndex: Int, now: Date) -> [Action] {
        let stamp = Timestamp.format(now)
        conversation.sessionRules[ruleIndex].uses += 1
        conversation.sessionRules[ruleIndex].lastUsedAt = stamp
        let rule = conversation.sessionRules[ruleIndex]
        approval.state = .allowed
        approval.decision = .allowSession
        approval.decidedBy = "rule \(rule.id)"
        approval.decidedAt = stamp
        approval.message = "allowed by the session rule \(rule.rule.display)"
        return [
            .save(.approval(approval)), .save(.conversation(conversation)),
            .emit(.permissionResolved(PermissionResolvedEvent(approvalId: approval.id, decision: ApprovalDecision.allowSession.rawValue, by: approval.decidedBy, message: approval.message))),
        ]
    }

    /// Ties the tool call `toolUseID` of the turn to its approval.
    mutating func link(_ turn: inout Current, toolUseID: String?, approvalID: String) -> [Action] {
        guard let toolUseID, let messageID = turn.toolMessage[toolUseID], var message = turn.messages[messageID],
            let index = message.toolCalls.firstIndex(where: { $0.toolUseId == toolUseID })
        else { return [] }
        message.toolCalls[index].approvalId = approvalID
        turn.messages[messageID] = message
        return [.save(.message(message))]
    }

    /// The `permissions` event: the mode the agent reports and the rules, as they are now.
    func permissionsChanged() -> Action {
        .emit(.permissions(PermissionsEvent(permissionMode: conversation.agentPermissionMode, sessionRules: conversation.sessionRules)))
    }

    /// The turn holding pending approval `id`.
    func slot(holding id: String) -> Slot? {
        if current?.pending[id] != nil { return .ours }
        if agentTurn?.pending[id] != nil { return .agent }
        return nil
    }
}
