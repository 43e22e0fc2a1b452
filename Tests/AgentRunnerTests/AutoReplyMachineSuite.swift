import Foundation
import RalphAPI

@testable import AgentRunner

/// What the auto-reply machine suites share: a test clock, made-up replies, and readers of the actions a step returns.
protocol AutoReplyMachineSuite {}

extension AutoReplyMachineSuite {
    typealias Machine = AutoReplyMachine
    typealias Action = AutoReplyMachine.Action

    static var t0: Date { Date(timeIntervalSince1970: 1_800_000_000) }
    static func at(minutes: Double) -> Date { t0.addingTimeInterval(minutes * 60) }
    static var judge: JudgeSettings { JudgeSettings(baseUrl: "http://127.0.0.1:11434/v1", model: "judge") }

    /// Distinct replies that match no completion, showstopper or stuck rule.
    static func work(_ i: Int) -> String { "Step \(i): changed module\(i) and ran build number \(i * 7)." }

    static func sends(_ actions: [Action]) -> [String] { actions.compactMap { if case .send(let p) = $0 { p } else { nil } } }
    static func notices(_ actions: [Action]) -> [AutoReplyProgress] { actions.compactMap { if case .notice(let p) = $0 { p } else { nil } } }
    static func judges(_ actions: [Action]) -> [String] { actions.compactMap { if case .judge(let r) = $0 { r } else { nil } } }
    static func lastProgress(_ actions: [Action]) -> AutoReplyProgress? {
        actions.compactMap { if case .progress(let p) = $0 { p } else { nil } }.last
    }

    /// A running machine; the first prompt sent when the conversation was idle.
    static func started(_ settings: AutoReplySettings, at now: Date = t0) throws -> (Machine, [Action]) {
        var m = Machine(conversationID: "c1", settings: settings)
        let actions = try m.handle(.start(now: now, conversationIdle: true))
        return (m, actions)
    }

    static func end(_ m: inout Machine, _ reply: String, at now: Date, failed: Bool = false, error: String? = nil) throws -> [Action] {
        try m.handle(.turnEnded(reply: reply, failed: failed, error: error, now: now))
    }

    static func refusal(_ m: inout Machine, _ input: Machine.Input) -> Machine.Refusal? {
        do {
            _ = try m.handle(input)
            return nil
        } catch { return error }
    }
}
