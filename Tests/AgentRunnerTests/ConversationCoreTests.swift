import Foundation
import RalphAPI
import Testing

@testable import AgentRunner

/// The parent machine: the chat machine and the auto-reply loop answer each input with one ordered list of actions,
/// and talk to each other inside it (a turn that ends reaches the loop, the loop's prompt reaches the chat machine).
@Suite("Conversation core")
struct ConversationCoreTests {
    typealias Action = ConversationCore.Action
    static func at(_ seconds: Double) -> Date { ConversationMachineTests.at(seconds) }

    /// A new conversation (no process yet) with a loop of `settings` (stopped).
    static func core(_ settings: AutoReplySettings = AutoReplySettings()) -> ConversationCore {
        ConversationCore(chat: ConversationMachineTests.machine(), autoReply: AutoReplyMachine(conversationID: "c1", settings: settings))
    }

    /// Starts the loop and the agent process: the first prompt's turn is running.
    @discardableResult
    static func start(_ core: inout ConversationCore, at now: Date = at(1)) throws -> [Action] {
        let actions = try core.control(.start(nil), now: now)
        return actions + core.processStarted(now: now)
    }

    static func events(_ actions: [Action]) -> [ChatEvent] { actions.compactMap { if case .emit(let e) = $0 { e } else { nil } } }
    static func names(_ actions: [Action]) -> [String] { events(actions).map(\.name) }
    static func userTexts(_ actions: [Action]) -> [String] {
        actions.compactMap { if case .send(.user(let text, _)) = $0 { text } else { nil } }
    }
    static func loops(_ actions: [Action]) -> [AutoReplyMachine] { actions.compactMap { if case .saveLoop(let m) = $0 { m } else { nil } } }
    static func progress(_ actions: [Action]) -> [AutoReplyProgress] {
        events(actions).compactMap { if case .autoReply(let p) = $0 { p } else { nil } }
    }

    /// The agent answers the running turn with `reply` and ends it.
    static func answer(_ core: inout ConversationCore, _ reply: String, at now: Date, isError: Bool = false) -> [Action] {
        var actions = core.agentOutput(.textDelta(text: reply, parentToolUseID: nil), now: now)
        actions += core.agentOutput(.assistantText(messageID: "msg_\(now.timeIntervalSince1970)", text: reply, parentToolUseID: nil), now: now)
        actions += core.agentOutput(ConversationMachineTests.result(isError: isError, errors: isError ? ["boom"] : []), now: now)
        return actions
    }

    @Test("starting the loop on an idle conversation sends its first prompt in the same step")
    func startSendsFirstPrompt() throws {
        var core = Self.core(AutoReplySettings(nextPrompt: NextPrompt(strategy: .fixed, text: "go on")))
        let actions = try core.control(.start(nil), now: Self.at(1))
        #expect(core.autoReply.state == .running)
        let turns = actions.compactMap { if case .save(.turn(let t)) = $0 { t.text } else { nil } }
        #expect(turns == ["go on"], "the prompt reaches the chat machine without a round trip through the server")
        #expect(actions.contains(.spawn(resumeSessionID: nil)), "and the agent is started for it in the same step")
        #expect(Self.names(actions).first == ChatEventName.autoReply, "progress is stored and announced before the turn it starts")
        #expect(Self.loops(actions).last?.state == .running, "the loop is stored with the step")
        let started = core.processStarted(now: Self.at(1.1))
        #expect(Self.userTexts(started) == ["go on"])
    }

    @Test("a turn that completes is judged by the loop and the next prompt is queued, all in one step")
    func turnEndFeedsLoop() throws {
        var core = Self.core(AutoReplySettings(nextPrompt: NextPrompt(strategy: .fixed, text: "continue")))
        try Self.start(&core)
        let actions = Self.answer(&core, "Step 1: changed module1 and ran build number 7.", at: Self.at(2))
        let names = Self.names(actions)
        let complete = try #require(names.firstIndex(of: ChatEventName.complete))
        let progress = try #require(names.lastIndex(of: ChatEventName.autoReply))
        let next = try #require(names.lastIndex(of: ChatEventName.turnStart))
        #expect(complete < progress && progress < next, "complete, then the loop's progress, then the next turn: \(names)")
        #expect(Self.userTexts(actions) == ["continue"])
        #expect(core.autoReply.iterations == 1)
    }

    @Test("a reply that says it is complete stops the loop with a notice and sends nothing")
    func completionStops() throws {
        var core = Self.core()
        try Self.start(&core)
        let actions = Self.answer(&core, "All tests pass. Task complete.", at: Self.at(2))
        #expect(core.autoReply.state == .stopped)
        #expect(core.autoReply.stopReason == .completion)
        #expect(Self.userTexts(actions).isEmpty)
        #expect(actions.contains { if case .notice(let p) = $0 { p.stopReason == .completion } else { false } })
    }

    @Test("a person's message pauses a running loop in the same step (no override allowed)")
    func manualMessagePauses() throws {
        var core = Self.core(AutoReplySettings(allowOverride: false))
        try Self.start(&core)
        let (response, actions) = core.send(text: "wait, do this instead", mode: .queue, now: Self.at(2))
        #expect(response.queuedPosition == 1, "queued behind the loop's running turn")
        #expect(core.autoReply.state == .paused)
        #expect(core.autoReply.pauseReason == .override)
        #expect(Self.progress(actions).last?.state == .paused)
    }

    @Test("the loop does not take a person's message for an auto-reply, and a stopped loop hears nothing")
    func stoppedLoopIgnoresTurns() {
        var core = Self.core()
        _ = core.send(text: "hello", mode: .queue, now: Self.at(1))
        _ = core.processStarted(now: Self.at(1))
        let actions = Self.answer(&core, "Done.", at: Self.at(2))
        #expect(Self.loops(actions).isEmpty)
        #expect(core.autoReply.iterations == 0)
    }

    @Test("an approval pauses the loop and its answer resumes it")
    func approvalsPauseAndResume() throws {
        var core = Self.core()
        try Self.start(&core)
        let request = AgentPermissionRequest(requestID: "r1", toolName: "Bash", input: ["command": "ls"], toolUseID: "toolu_1")
        let asked = core.agentOutput(.permissionRequest(request), now: Self.at(2))
        #expect(core.autoReply.pauseReason == .approval)
        #expect(Self.progress(asked).last?.state == .paused)
        let approval = try #require(core.chat.pendingApprovalIDs.first)
        let (_, decided) = try core.step(now: Self.at(3)) { chat throws(ConversationMachine.Refusal) in
            try chat.decide(approvalID: approval, decision: .allow, message: nil, updatedInput: nil, by: "k1", now: Self.at(3))
        }
        #expect(core.autoReply.state == .running)
        #expect(Self.progress(decided).last?.state == .running)
    }

    @Test("with a judge, the loop asks it (with the prompt answered) and its verdict decides")
    func judgeRoundTrip() throws {
        let judge = JudgeSettings(baseUrl: "http://127.0.0.1:11434/v1", model: "judge")
        var core = Self.core(AutoReplySettings(nextPrompt: NextPrompt(strategy: .judge, text: nil), judge: judge))
        try Self.start(&core)
        let ended = Self.answer(&core, "Step 1: changed module1 and ran build number 7.", at: Self.at(2))
        let asked = ended.compactMap { if case .judge(let reply, let task, let settings) = $0 { (reply, task, settings) } else { nil } }
        #expect(asked.count == 1)
        #expect(asked.first?.0 == "Step 1: changed module1 and ran build number 7.")
        #expect(asked.first?.1 == AutoReplySettings().fixedPrompt)
        #expect(asked.first?.2 == judge)
        #expect(Self.userTexts(ended).isEmpty, "nothing is sent before the judge answers")
        let verdict = core.judged(confidence: 0.1, nextPrompt: "now write the tests", now: Self.at(3))
        #expect(Self.userTexts(verdict) == ["now write the tests"])
    }

    @Test("a loop that lost its judge setting meanwhile is decided by the rules at once")
    func judgeGoneDecidesByRules() throws {
        let judge = JudgeSettings(baseUrl: "http://127.0.0.1:11434/v1", model: "judge")
        var core = Self.core(AutoReplySettings(judge: judge))
        try Self.start(&core)
        _ = try core.control(.settings(AutoReplySettings(nextPrompt: NextPrompt(strategy: .fixed, text: "more"))), now: Self.at(1.5))
        var loop = core.autoReply
        let direct = loop.observe(.turnEnded(reply: "x", failed: false, error: nil, now: Self.at(2)))
        #expect(!direct.contains { if case .judge = $0 { true } else { false } })
        let actions = Self.answer(&core, "Step 2: changed module2 and ran build number 14.", at: Self.at(2))
        #expect(!actions.contains { if case .judge = $0 { true } else { false } })
        #expect(Self.userTexts(actions) == ["more"])
    }

    @Test("controls are refused as the loop refuses them, and a settings change is stored even without progress")
    func controls() throws {
        var core = Self.core()
        #expect(throws: AutoReplyMachine.Refusal.notRunning) { try core.control(.pause, now: Self.at(1)) }
        #expect(throws: AutoReplyMachine.Refusal.disabled) {
            _ = try core.control(.settings(AutoReplySettings(enabled: false)), now: Self.at(1))
            return try core.control(.start(nil), now: Self.at(2))
        }
        let stored = try core.control(.settings(AutoReplySettings(maxIterations: 3)), now: Self.at(3))
        #expect(Self.loops(stored).last?.settings.maxIterations == 3)
    }

    @Test("a loop reset is stored and said on the conversation as a recoverable error")
    func loopReset() {
        var core = Self.core()
        let actions = core.loopReset("auto-reply: the stored loop could not be read; it was reset", now: Self.at(1))
        #expect(Self.loops(actions).count == 1)
        #expect(Self.names(actions) == [ChatEventName.autoReply, ChatEventName.error])
        let error = Self.events(actions).compactMap { if case .error(let e) = $0 { e } else { nil } }.first
        #expect(error?.recoverable == true)
        #expect(error?.turnId == nil)
    }

    @Test("ticks reach both machines: a judge that never answers is replaced by the rules")
    func tickTimesOutJudge() throws {
        let judge = JudgeSettings(baseUrl: "http://127.0.0.1:11434/v1", model: "judge")
        var core = Self.core(AutoReplySettings(nextPrompt: NextPrompt(strategy: .fixed, text: "next"), judge: judge))
        try Self.start(&core)
        _ = Self.answer(&core, "Step 1: changed module1 and ran build number 7.", at: Self.at(2))
        #expect(core.autoReply.isAwaitingJudgement)
        let actions = core.tick(now: Self.at(2 + AutoReplyMachine.defaultJudgeTimeout + 1))
        #expect(!core.autoReply.isAwaitingJudgement)
        #expect(Self.userTexts(actions) == ["next"])
    }
}
